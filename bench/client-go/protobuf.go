package main

// The protobuf fixtures: what a real kube-apiserver sends client-go for built-in kinds. The
// stream server's JSON list and watch events are converted once, here, with the apiserver's own
// serializers, so the bytes are what client-go reads from a real server:
//   - a list: the "k8s\x00" envelope (runtime.Unknown) around the ConfigMapList;
//   - a watch: length-delimited frames (4-byte big-endian length), each a metav1.WatchEvent
//     written raw, whose object is the enveloped ConfigMap.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

// convertList reads a JSON ConfigMapList on stdin and writes it as protobuf on stdout.
func convertList() {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		panic(err)
	}
	var list corev1.ConfigMapList
	if err := json.Unmarshal(data, &list); err != nil {
		panic(err)
	}
	list.APIVersion, list.Kind = "v1", "ConfigMapList"
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(&list, out); err != nil {
		panic(err)
	}
	if err := out.Flush(); err != nil {
		panic(err)
	}
}

// convertEvents reads JSON watch event lines on stdin and writes protobuf watch frames on stdout.
func convertEvents() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	serializer := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	var object bytes.Buffer
	var length [4]byte
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var event struct {
				Type   string          `json:"type"`
				Object json.RawMessage `json:"object"`
			}
			if err := json.Unmarshal(line, &event); err != nil {
				panic(err)
			}
			var cm corev1.ConfigMap
			if err := json.Unmarshal(event.Object, &cm); err != nil {
				panic(err)
			}
			cm.APIVersion, cm.Kind = "v1", "ConfigMap"
			object.Reset()
			if err := serializer.Encode(&cm, &object); err != nil {
				panic(err)
			}
			frame, err := (&metav1.WatchEvent{Type: event.Type, Object: runtime.RawExtension{Raw: object.Bytes()}}).Marshal()
			if err != nil {
				panic(err)
			}
			binary.BigEndian.PutUint32(length[:], uint32(len(frame)))
			_, _ = out.Write(length[:])
			_, _ = out.Write(frame)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
	}
	if err := out.Flush(); err != nil {
		panic(err)
	}
}
