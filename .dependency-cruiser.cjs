// Dependency rules, checked by `pnpm test` (scripts/ci/check-dependencies.mjs) with
// dependency-cruiser, as rxjs checks its own:
// - @kindex/core is Kubernetes-agnostic: it never imports @kubernetes/client-node;
// - no import cycles, type-only imports included (a cycle is a design smell even when erased);
// - a package's `internal/` folders are private to it: other packages use its index.ts.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-without-client-node',
      comment: '@kindex/core is the Kubernetes-agnostic engine; Kubernetes access lives in @kindex/informer.',
      severity: 'error',
      from: { path: '^packages/core/' },
      to: { path: '@kubernetes/client-node' },
    },
    {
      name: 'no-circular',
      comment: 'Import cycles make module order matter and stages inseparable; move the shared part to its own file.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'internal-is-private',
      comment: "An internal/ folder is private to its package; import the package's public API (its index.ts) instead.",
      severity: 'error',
      from: { path: '^(packages|samples)/([^/]+)/|^(integration-tests|bench)/' },
      to: { path: '/internal/', pathNot: ['^$1/$2/', '^$3/', 'node_modules'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'types', 'default'], extensions: ['.ts', '.js'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
