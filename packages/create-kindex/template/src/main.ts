/**
 * The process: loads the kubeconfig (`$KUBECONFIG`, `~/.kube/config`, or the pod's
 * ServiceAccount), runs the operator until SIGTERM or Ctrl-C, then drains, releases its Lease
 * and exits 0.
 */
import { runOperator } from '@kindex/informer';
import definition from './operator.js';

await runOperator(definition);
