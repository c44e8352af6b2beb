// Public API of @kindex/core.
export const PACKAGE_NAME = '@kindex/core';
