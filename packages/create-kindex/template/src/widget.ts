/**
 * The Widget custom resource, defined once in TypeScript: its static type, its resource kind and
 * its CustomResourceDefinition (`npm run manifests` writes the CRD into config/ from this value).
 */
import Type from 'typebox';
import { Conditions, customResource, type ObjectOfKind } from '@kindex/informer';

/** The key of the message in the ConfigMap when `spec.key` is not given. */
export const DEFAULT_KEY = 'message';

export const Widgets = customResource({
  group: 'example.com',
  kind: 'Widget',
  plural: 'widgets',
  versions: {
    v1alpha1: {
      spec: Type.Object({
        /** The text the operator writes into the Widget's ConfigMap. */
        message: Type.String({
          maxLength: 1024,
          // A CEL rule, checked by the API server on every write (and by Widgets.validate()).
          'x-kubernetes-validations': [
            { rule: 'self.trim().size() > 0', message: 'must not be blank: put the text of the ConfigMap in spec.message' },
          ],
        }),
        /** The ConfigMap key holding the message. The API server fills in the default when it is left out. */
        key: Type.Optional(Type.String({ default: DEFAULT_KEY, minLength: 1, maxLength: 253, pattern: '^[-._a-zA-Z0-9]+$' })),
      }),
      status: Type.Object({
        /** The name of the ConfigMap the operator keeps for this Widget. */
        configMap: Type.Optional(Type.String()),
        /** `Ready` (the Kubernetes convention), with the generation it describes. */
        conditions: Type.Optional(Conditions),
      }),
      printerColumns: [
        { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
        { name: 'ConfigMap', type: 'string', jsonPath: '.status.configMap' },
      ],
    },
  },
});

/** A Widget as read from the API server. */
export type Widget = ObjectOfKind<typeof Widgets>;
