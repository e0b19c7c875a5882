// Package shipd is the Go client of the shipd API.
//
// The types and the per-operation methods (CreateShipmentWithResponse, …)
// are generated from the API's OpenAPI document (shipd.gen.go, by
// oapi-codegen). The hand-written rest is what a generator cannot know:
// the API key, an Idempotency-Key on every POST, retries that honour
// Retry-After, one error type for every error answer (*Error), iterators
// over paginated lists, the label and a manifest's document as a stream,
// and webhook verification.
//
//	c, err := shipd.New("https://shipd.example", apiKey)
//	res, err := c.GetShipmentWithResponse(ctx, "sh_…")
//	var e *shipd.Error
//	if errors.As(err, &e) && e.Status == 404 { … }
//
// A method of the generated client returns a nil response and an error for
// every answer outside 2xx, so a non-nil response always holds the success
// body (JSON200, JSON201, …).
package shipd
