// Command kindex-bench-client-go is the client-go contender of the kindex benchmarks: a
// SharedIndexInformer on ConfigMaps with an owner index, fed by the bench's stream server. It
// prints one JSON line of measurements on stdout.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
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
func ownerKeys(cm *corev1.ConfigMap) []string {
	var keys []string
	for _, ref := range cm.OwnerReferences {
		if ref.Kind == "Cluster" {
			keys = append(keys, cm.Namespace+"/"+ref.Name)
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
func startAndSync(factory informers.SharedInformerFactory, registration cache.ResourceEventHandlerRegistration, informer cache.SharedIndexInformer, stop chan struct{}, mode string, objects int) map[string]interface{} {
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
	if *useMetadata {
		out, _ := json.Marshal(runMetadata(cfg, *mode, *objects, *events, *lookups, *primaries, *namespace))
		fmt.Println(string(out))
		return
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	if *mode == "e2e" {
		out, _ := json.Marshal(runE2E(client, cfg, *objects, *events))
		fmt.Println(string(out))
		return
	}

	heapBefore := heapAfterGC()
	factory := informers.NewSharedInformerFactory(client, 0)
	informer := factory.Core().V1().ConfigMaps().Informer()
	if err := informer.AddIndexers(cache.Indexers{byOwner: func(obj interface{}) ([]string, error) {
		return ownerKeys(obj.(*corev1.ConfigMap)), nil
	}}); err != nil {
		panic(err)
	}
	queue := workqueue.NewTyped[string]()
	var synced atomic.Bool
	var afterSync atomic.Int64
	done := make(chan struct{})
	target := int64(*events)
	// Events delivered to the handler after the initial sync, before any filter.
	seen := func(cm *corev1.ConfigMap) {
		if !synced.Load() {
			return
		}
		n := afterSync.Add(1)
		switch {
		case *mode == "watch" && n == target:
			close(done)
		case *mode == "relist" && cm != nil && cm.Name == "sentinel":
			close(done)
		}
	}
	registration, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			cm := obj.(*corev1.ConfigMap)
			for _, k := range ownerKeys(cm) {
				queue.Add(k)
			}
			// Not counted (the sentinel aside): Adds of the initial list may still be in
			// flight to the handler after sync, and a relist of unchanged objects yields
			// Updates, never Adds.
			if *mode == "relist" && cm.Name == "sentinel" && synced.Load() {
				close(done)
			}
		},
		UpdateFunc: func(oldObj, newObj interface{}) {
			cm := newObj.(*corev1.ConfigMap)
			seen(cm)
			// The same filter as the other contenders: a relist's unchanged objects reconcile nothing.
			if cm.ResourceVersion == oldObj.(*corev1.ConfigMap).ResourceVersion {
				return
			}
			for _, k := range ownerKeys(cm) {
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
	result := startAndSync(factory, registration, informer, stop, *mode, *objects)
	synced.Store(true)

	switch *mode {
	case "sync":
		result["peakRssBytes"] = vmHWMBytes()
		result["retainedHeapBytes"] = int64(heapAfterGC()) - int64(heapBefore)
		indexer := informer.GetIndexer()
		rng := rand.New(rand.NewSource(42))
		lat := make([]float64, 0, *lookups)
		found := 0
		for i := 0; i < *lookups; i++ {
			key := fmt.Sprintf("%s/cluster-%d", *namespace, rng.Intn(*primaries))
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
		// Updates and deletes after sync; the sentinel (an Add) is not among them.
		result["eventsAfterRelist"] = afterSync.Load()
	}
	close(stop)
	queue.ShutDown()
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
}
