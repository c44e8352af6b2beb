// Public API of @kindex/informer.
export const PACKAGE_NAME = '@kindex/informer';
