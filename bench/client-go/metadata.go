// The client-go (metadata) contender: controller-runtime's OnlyMetadata, i.e. a metadatainformer
// on ConfigMaps (PartialObjectMetadata, asked for with `as=PartialObjectMetadataList` and
// `as=PartialObjectMetadata`, which the stream server answers with metadata-only JSON), with the
// same owner index, workqueue and resourceVersion update filter as the whole-object informer.
package main

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
)

func runMetadata(r informerRun) map[string]interface{} {
	r.contender = "client-go-metadata"
	r.heapBefore = heapAfterGC()
	factory := metadatainformer.NewSharedInformerFactory(metadata.NewForConfigOrDie(r.cfg), 0)
	informer := factory.ForResource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Informer()
	return r.run(factory, informer)
}
