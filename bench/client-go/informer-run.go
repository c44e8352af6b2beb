package main

import (
	"fmt"
	"math/rand"
	"net/http"
	"sort"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// informerRun is what the sync, watch and relist modes measure on one informer, whole objects
// (main.go) or metadata only (metadata.go): both are read through metav1.Object.
type informerRun struct {
	cfg        *rest.Config
	contender  string
	mode       string
	objects    int
	events     int
	lookups    int
	primaries  int
	namespace  string
	heapBefore uint64
}

// run adds the owner index and the handlers (the queue, the resourceVersion update filter and the
// counters of each mode) to informer, starts the factory, times the sync and measures the mode.
func (r informerRun) run(factory interface{ Start(<-chan struct{}) }, informer cache.SharedIndexInformer) map[string]interface{} {
	if err := informer.AddIndexers(cache.Indexers{byOwner: func(obj interface{}) ([]string, error) {
		return ownerKeys(obj.(metav1.Object)), nil
	}}); err != nil {
		panic(err)
	}
	queue := workqueue.NewTyped[string]()
	var synced atomic.Bool
	var afterSync atomic.Int64
	done := make(chan struct{})
	target := int64(r.events)
	// Events delivered to the handler after the initial sync, before any filter.
	seen := func(o metav1.Object) {
		if !synced.Load() {
			return
		}
		n := afterSync.Add(1)
		switch {
		case r.mode == "watch" && n == target:
			close(done)
		case r.mode == "relist" && o != nil && o.GetName() == "sentinel":
			close(done)
		}
	}
	registration, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			o := obj.(metav1.Object)
			for _, k := range ownerKeys(o) {
				queue.Add(k)
			}
			// Not counted (the sentinel aside): Adds of the initial list may still be in
			// flight to the handler after sync, and a relist of unchanged objects yields
			// Updates, never Adds.
			if r.mode == "relist" && o.GetName() == "sentinel" && synced.Load() {
				close(done)
			}
		},
		UpdateFunc: func(oldObj, newObj interface{}) {
			o := newObj.(metav1.Object)
			seen(o)
			// The same filter as the other contenders: a relist's unchanged objects reconcile nothing.
			if o.GetResourceVersion() == oldObj.(metav1.Object).GetResourceVersion() {
				return
			}
			for _, k := range ownerKeys(o) {
				queue.Add(k)
			}
		},
		DeleteFunc: func(obj interface{}) {
			seen(nil)
		},
	})
	if err != nil {
		panic(err)
	}

	stop := make(chan struct{})
	result := startAndSync(factory, registration, informer, stop, r.mode, r.objects)
	result["contender"] = r.contender
	synced.Store(true)

	switch r.mode {
	case "sync":
		result["peakRssBytes"] = vmHWMBytes()
		result["retainedHeapBytes"] = int64(heapAfterGC()) - int64(r.heapBefore)
		indexer := informer.GetIndexer()
		rng := rand.New(rand.NewSource(42))
		lat := make([]float64, 0, r.lookups)
		found := 0
		for i := 0; i < r.lookups; i++ {
			key := fmt.Sprintf("%s/cluster-%d", r.namespace, rng.Intn(r.primaries))
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
		// The stream server holds the watch events until this contender's clock runs.
		resp, err := http.Post(r.cfg.Host+"/bench/start", "text/plain", nil)
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
		// Updates and deletes after sync; the sentinel (an Add) is not among them.
		result["eventsAfterRelist"] = afterSync.Load()
	}
	close(stop)
	queue.ShutDown()
	return result
}
