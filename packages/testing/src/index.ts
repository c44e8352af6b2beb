// Public API of @kindex/testing.
export const PACKAGE_NAME = '@kindex/testing';
