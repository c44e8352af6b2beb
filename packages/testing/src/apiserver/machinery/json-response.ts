// The answer of a verb before it is encoded: what every stage that answers a request returns
// (the registry's verbs, access reviews, conversion and admission around them).

/** A finished response: HTTP status and JSON text. */
export interface JsonResponse {
  readonly status: number;
  readonly body: string;
  /** Texts of `Warning: 299` headers (unknown fields under fieldValidation=Warn). */
  readonly warnings?: readonly string[];
}
