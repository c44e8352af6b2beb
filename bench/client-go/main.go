// Command kindex-bench-client-go is the client-go contender of the kindex benchmarks: a
// SharedIndexInformer on ConfigMaps with an owner index, fed by the bench's stream server. It
// prints one JSON line of measurements on stdout.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

const byOwner = "byOwner"

func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func vmHWMBytes() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), "%d", &kb)
			return kb * 1024
		}
	}
	return 0
}

func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// ownerKeys is the mapper: the primaries (owner references of kind Cluster) of a secondary.
func ownerKeys(o metav1.Object) []string {
	var keys []string
	for _, ref := range o.GetOwnerReferences() {
		if ref.Kind == "Cluster" {
			keys = append(keys, o.GetNamespace()+"/"+ref.Name)
		}
	}
	return keys
}

func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p * float64(len(sorted)-1))
	return sorted[i]
}

// startAndSync starts the informers and times the initial sync, wall and CPU. The handler's
// registration is synced once the list's Add notifications reached the handler (they are
// delivered asynchronously). Polled every millisecond: WaitForCacheSync polls every 100 ms, which
// would round every sync time up.
func startAndSync(factory interface{ Start(<-chan struct{}) }, registration cache.ResourceEventHandlerRegistration, informer cache.SharedIndexInformer, stop chan struct{}, mode string, objects int) map[string]interface{} {
	start := time.Now()
	cpu0 := cpuSeconds()
	factory.Start(stop)
	for !registration.HasSynced() {
		time.Sleep(time.Millisecond)
	}
	result := map[string]interface{}{"contender": "client-go", "mode": mode, "syncMs": float64(time.Since(start).Microseconds()) / 1000, "syncCpuS": cpuSeconds() - cpu0}
	if got := len(informer.GetStore().ListKeys()); got != objects {
		panic(fmt.Sprintf("synced %d objects, expected %d", got, objects))
	}
	return result
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the stream server")
	mode := flag.String("mode", "sync", "sync | watch | relist | e2e | convert-list | convert-events")
	objects := flag.Int("objects", 0, "objects in the list")
	events := flag.Int("events", 0, "MODIFIED events to wait for (watch)")
	lookups := flag.Int("lookups", 20000, "lookups after sync (sync)")
	primaries := flag.Int("primaries", 0, "number of primaries (lookup keys)")
	namespace := flag.String("namespace", "bench", "namespace of the objects")
	useProtobuf := flag.Bool("protobuf", false, "read protobuf, as client-go does from a real kube-apiserver for built-in kinds")
	useMetadata := flag.Bool("metadata", false, "a metadata informer (PartialObjectMetadata), as controller-runtime's OnlyMetadata (metadata.go)")
	flag.Parse()
	switch *mode {
	case "convert-list":
		convertList()
		return
	case "convert-events":
		convertEvents()
		return
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		panic(err)
	}
	cfg.QPS = 1e6
	cfg.Burst = 1e6
	// client-go asks for protobuf by default for built-in kinds; the JSON contender asks for JSON only.
	if *useProtobuf {
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf"
	} else {
		cfg.ContentType = "application/json"
		cfg.AcceptContentTypes = "application/json"
	}
	run := informerRun{cfg: cfg, contender: "client-go", mode: *mode, objects: *objects, events: *events, lookups: *lookups, primaries: *primaries, namespace: *namespace}
	if *useMetadata {
		out, _ := json.Marshal(runMetadata(run))
		fmt.Println(string(out))
		return
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	if *mode == "e2e" {
		out, _ := json.Marshal(runE2E(client, cfg, *objects, *events))
		fmt.Println(string(out))
		return
	}

	run.heapBefore = heapAfterGC()
	factory := informers.NewSharedInformerFactory(client, 0)
	result := run.run(factory, factory.Core().V1().ConfigMaps().Informer())
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
}
