// The client-go (metadata) contender: controller-runtime's OnlyMetadata, i.e. a metadatainformer
// on ConfigMaps (PartialObjectMetadata, asked for with `as=PartialObjectMetadataList` and
// `as=PartialObjectMetadata`, which the stream server answers with metadata-only JSON), with the
// same owner index, workqueue and resourceVersion update filter as the whole-object informer.
package main

import (
	"fmt"
	"math/rand"
	"net/http"
	"sort"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// metadataOwnerKeys is ownerKeys for a PartialObjectMetadata.
func metadataOwnerKeys(m *metav1.PartialObjectMetadata) []string {
	var keys []string
	for _, ref := range m.OwnerReferences {
		if ref.Kind == "Cluster" {
			keys = append(keys, m.Namespace+"/"+ref.Name)
		}
	}
	return keys
}

func runMetadata(cfg *rest.Config, mode string, objects, events, lookups, primaries int, namespace string) map[string]interface{} {
	heapBefore := heapAfterGC()
	client := metadata.NewForConfigOrDie(cfg)
	factory := metadatainformer.NewSharedInformerFactory(client, 0)
	informer := factory.ForResource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Informer()
	if err := informer.AddIndexers(cache.Indexers{byOwner: func(obj interface{}) ([]string, error) {
		return metadataOwnerKeys(obj.(*metav1.PartialObjectMetadata)), nil
	}}); err != nil {
		panic(err)
	}
	queue := workqueue.NewTyped[string]()
	var synced atomic.Bool
	var afterSync atomic.Int64
	done := make(chan struct{})
	target := int64(events)
	seen := func(m *metav1.PartialObjectMetadata) {
		if !synced.Load() {
			return
		}
		n := afterSync.Add(1)
		switch {
		case mode == "watch" && n == target:
			close(done)
		case mode == "relist" && m != nil && m.Name == "sentinel":
			close(done)
		}
	}
	registration, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			m := obj.(*metav1.PartialObjectMetadata)
			for _, k := range metadataOwnerKeys(m) {
				queue.Add(k)
			}
			if mode == "relist" && m.Name == "sentinel" && synced.Load() {
				close(done)
			}
		},
		UpdateFunc: func(oldObj, newObj interface{}) {
			m := newObj.(*metav1.PartialObjectMetadata)
			seen(m)
			if m.ResourceVersion == oldObj.(*metav1.PartialObjectMetadata).ResourceVersion {
				return
			}
			for _, k := range metadataOwnerKeys(m) {
				queue.Add(k)
			}
		},
		DeleteFunc: func(obj interface{}) { seen(nil) },
	})
	if err != nil {
		panic(err)
	}

	stop := make(chan struct{})
	start := time.Now()
	cpu0 := cpuSeconds()
	factory.Start(stop)
	for !registration.HasSynced() {
		time.Sleep(time.Millisecond)
	}
	result := map[string]interface{}{"contender": "client-go-metadata", "mode": mode, "syncMs": float64(time.Since(start).Microseconds()) / 1000, "syncCpuS": cpuSeconds() - cpu0}
	if got := len(informer.GetStore().ListKeys()); got != objects {
		panic(fmt.Sprintf("synced %d objects, expected %d", got, objects))
	}
	synced.Store(true)

	switch mode {
	case "sync":
		result["peakRssBytes"] = vmHWMBytes()
		result["retainedHeapBytes"] = int64(heapAfterGC()) - int64(heapBefore)
		indexer := informer.GetIndexer()
		rng := rand.New(rand.NewSource(42))
		lat := make([]float64, 0, lookups)
		found := 0
		for i := 0; i < lookups; i++ {
			key := fmt.Sprintf("%s/cluster-%d", namespace, rng.Intn(primaries))
			t := time.Now()
			items, _ := indexer.ByIndex(byOwner, key)
			lat = append(lat, float64(time.Since(t).Nanoseconds())/1000)
			found += len(items)
		}
		sort.Float64s(lat)
		result["lookupP50Us"] = percentile(lat, 0.5)
		result["lookupP99Us"] = percentile(lat, 0.99)
		result["lookupFound"] = found
	case "watch":
		t0 := time.Now()
		c0 := cpuSeconds()
		resp, err := http.Post(cfg.Host+"/bench/start", "text/plain", nil)
		if err != nil {
			panic(err)
		}
		_ = resp.Body.Close()
		<-done
		secs := time.Since(t0).Seconds()
		result["events"] = target
		result["watchS"] = secs
		result["eventsPerS"] = float64(target) / secs
		result["cpuSPer1000"] = (cpuSeconds() - c0) / float64(target) * 1000
	case "relist":
		<-done
		result["eventsAfterRelist"] = afterSync.Load()
	}
	close(stop)
	queue.ShutDown()
	return result
}
