// Type-level tests: checked by `tsc -b`, never run. Each @ts-expect-error must stay an error.
import Type from 'typebox';
import type { KubeClient } from '../index.js';
import { KubeType, customResource, type ObjectOfKind, type ResourceKind } from '../index.js';

const Widgets = customResource({
  group: 'example.com',
  kind: 'Widget',
  plural: 'widgets',
  versions: {
    v1beta1: { spec: Type.Object({ size: Type.String() }) },
    v1: {
      storage: true,
      spec: Type.Object({
        replicas: Type.Integer(),
        mode: Type.Union([Type.Literal('fast'), Type.Literal('safe')]),
        port: Type.Optional(KubeType.IntOrString()),
        note: KubeType.Nullable(Type.String()),
        labels: Type.Optional(Type.Record(Type.String(), Type.String())),
      }),
      status: Type.Object({ ready: Type.Optional(Type.Boolean()) }),
    },
  },
});

// The kind is the storage version's, and its objects infer from the schemas.
type Widget = ObjectOfKind<typeof Widgets>;
const replicas: number = ({} as Widget).spec.replicas;
const mode: 'fast' | 'safe' = ({} as Widget).spec.mode;
const port: number | string | undefined = ({} as Widget).spec.port;
const note: string | null = ({} as Widget).spec.note;
const ready: boolean | undefined = ({} as Widget).status?.ready;
// @ts-expect-error replicas is a number
const wrongReplicas: string = ({} as Widget).spec.replicas;
// @ts-expect-error mode is one of two literals
const wrongMode: 'slow' = ({} as Widget).spec.mode;

// Each version keeps its own type.
const size: string = ({} as ObjectOfKind<typeof Widgets.kinds.v1beta1>).spec.size;
// @ts-expect-error v1beta1 has no status schema
type NoStatus = ObjectOfKind<typeof Widgets.kinds.v1beta1>['status'];

// A custom resource is a ResourceKind: it goes wherever one does.
const kind: ResourceKind<Widget> = Widgets;
declare const client: KubeClient;
const created: Promise<Widget> = client.create(Widgets, {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w' },
  spec: { replicas: 1, mode: 'fast', note: null },
});

void (null as unknown as NoStatus);
void [replicas, mode, port, note, ready, wrongReplicas, wrongMode, size, kind, created];
