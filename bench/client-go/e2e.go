package main

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// e2eWorkers matches kindex's default concurrency, so both run 10 reconciles at once at most.
const e2eWorkers = 10

// latencies is what the reconciles record: event-to-reconcile-start latency of stamped
// ConfigMaps, and how many unstamped ones (the initial list) were reconciled.
type latencies struct {
	mu       sync.Mutex
	us       []float64
	initial  int
	lastSeen bool
	changed  chan struct{}
	// The newest event sequence number a reconcile has seen; CPU after warm-up from reconcile
	// number events / 5 (the end of the first fifth unless events coalesce) and in the second half
	// from events / 2, as the Node contenders report them.
	lastSeenSeq int
	warm        cpuMark
	half        cpuMark
}

// cpuMark is the process's CPU seconds when reconcile number at started, and the newest event
// sequence number seen then (-1 until it did).
type cpuMark struct {
	at  int
	cpu float64
	seq int
}

func newCPUMark(at int) cpuMark { return cpuMark{at: max(1, at), seq: -1} }

func (m *cpuMark) reached(reconciles, lastSeenSeq int) {
	if reconciles == m.at {
		m.cpu = cpuSeconds()
		m.seq = lastSeenSeq
	}
}

// perThousandSince is the CPU per 1,000 events sent after the newest one the mark saw, until
// cpuEnd; false when the mark never came.
func (m cpuMark) perThousandSince(cpuEnd float64, events int) (float64, bool) {
	after := events - 1 - m.seq
	if m.seq < 0 || after <= 0 {
		return 0, false
	}
	return (cpuEnd - m.cpu) / float64(after) * 1000, true
}

func (l *latencies) record(cm *corev1.ConfigMap, lastSeq int) {
	// Wall clock: the stream server stamped the event in another process.
	now := float64(time.Now().UnixNano()) / 1000
	l.mu.Lock()
	defer l.mu.Unlock()
	sentAt, ok := cm.Annotations["bench.kindex.dev/sent-at"]
	if !ok {
		l.initial++
	} else {
		sent, _ := strconv.ParseFloat(sentAt, 64)
		l.us = append(l.us, now-sent)
		if seq, err := strconv.Atoi(cm.Annotations["bench.kindex.dev/seq"]); err == nil {
			l.lastSeenSeq = max(l.lastSeenSeq, seq)
			l.lastSeen = l.lastSeen || seq == lastSeq
		}
		l.warm.reached(len(l.us), l.lastSeenSeq)
		l.half.reached(len(l.us), l.lastSeenSeq)
	}
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

func (l *latencies) waitFor(until func() bool, timeout time.Duration, what string) {
	deadline := time.After(timeout)
	for {
		l.mu.Lock()
		ok := until()
		l.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-l.changed:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			panic(fmt.Sprintf("timed out after %s waiting for %s", timeout, what))
		}
	}
}

// runE2E is the end-to-end scenario: a controller as client-go users write it (informer event
// handlers add the object's key to a rate-limited workqueue; workers take keys, read the object
// from the informer's indexer and reconcile it), timed from the server's stamp to reconcile start.
func runE2E(client kubernetes.Interface, cfg *rest.Config, objects, events int) map[string]interface{} {
	factory := informers.NewSharedInformerFactory(client, 0)
	informer := factory.Core().V1().ConfigMaps().Informer()
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	enqueue := func(obj interface{}) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			queue.Add(key)
		}
	}
	registration, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, newObj interface{}) { enqueue(newObj) },
		DeleteFunc: enqueue,
	})
	if err != nil {
		panic(err)
	}
	rec := &latencies{changed: make(chan struct{}, 1), lastSeenSeq: -1, warm: newCPUMark(events / 5), half: newCPUMark(events / 2)}
	lastSeq := events - 1
	var workers sync.WaitGroup
	for i := 0; i < e2eWorkers; i++ {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for {
				key, shutdown := queue.Get()
				if shutdown {
					return
				}
				if obj, exists, err := informer.GetIndexer().GetByKey(key); err == nil && exists {
					rec.record(obj.(*corev1.ConfigMap), lastSeq)
				}
				queue.Forget(key)
				queue.Done(key)
			}
		}()
	}

	stop := make(chan struct{})
	result := startAndSync(factory, registration, informer, stop, "e2e", objects)
	// The list's own reconciles must be over before the events start, or they queue ahead.
	rec.waitFor(func() bool { return rec.initial >= objects }, 2*time.Minute, "the initial reconciles")
	c0 := cpuSeconds()
	resp, err := http.Post(cfg.Host+"/bench/start", "text/plain", nil)
	if err != nil {
		panic(err)
	}
	_ = resp.Body.Close()
	rec.waitFor(func() bool { return rec.lastSeen }, time.Minute+time.Duration(events)*3*time.Millisecond, "the reconcile of the last event")
	cpuEnd := cpuSeconds()
	cpu := cpuEnd - c0
	close(stop)
	queue.ShutDown()
	workers.Wait()

	rec.mu.Lock()
	defer rec.mu.Unlock()
	sorted := append([]float64(nil), rec.us...)
	sort.Float64s(sorted)
	// Without the run's first fifth, as the Node contenders report it (their JIT warm-up).
	warm := append([]float64(nil), rec.us[len(rec.us)/5:]...)
	sort.Float64s(warm)
	maxUs := 0.0
	if len(sorted) > 0 {
		maxUs = sorted[len(sorted)-1]
	}
	result["events"] = events
	result["reconciles"] = len(sorted)
	result["latencyP50Ms"] = percentile(sorted, 0.5) / 1000
	result["latencyP99Ms"] = percentile(sorted, 0.99) / 1000
	result["latencyP99WarmMs"] = percentile(warm, 0.99) / 1000
	result["latencyMaxMs"] = maxUs / 1000
	result["cpuSPer1000"] = cpu / float64(events) * 1000
	if perThousand, ok := rec.warm.perThousandSince(cpuEnd, events); ok {
		result["cpuSPer1000Warm"] = perThousand
	}
	if perThousand, ok := rec.half.perThousandSince(cpuEnd, events); ok {
		result["cpuSPer1000SecondHalf"] = perThousand
	}
	return result
}
