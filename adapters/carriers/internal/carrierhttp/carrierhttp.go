// Package carrierhttp is what every real carrier adapter does over HTTP:
// send a request and sort the answer into the carrier port's kinds of
// failure, keep OAuth tokens per set of credentials until they expire, and
// read the channel settings every adapter has (sandboxMode,
// defaultLabelFormat).
package carrierhttp

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"shipd/platform/carrier"
	"shipd/platform/txguard"
)

// MaxBody bounds what is read of one answer: labels of many parcels fit.
const MaxBody = 64 << 20

// DefaultClient is the client an adapter uses when its Config names none.
// The booking and tracking workers bound each call with their own context
// deadline (CARRIER_TIMEOUT); this timeout only stops a call nobody bounded.
// Its transport refuses a call inside an open database transaction (ADR
// 0001), as Do does on any client: oauth2's token requests go through it.
var DefaultClient = &http.Client{Timeout: 60 * time.Second, Transport: txguard.Transport(nil)}

// Response is a carrier's answer, read whole.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends req and reads the answer. What the carrier port calls
// unavailable (no answer, a timeout, a done context, 429, 5xx) comes back as
// an error wrapping carrier.ErrUnavailable, naming what was asked; every
// other answer, 4xx included, comes back for the adapter to read.
func Do(client *http.Client, req *http.Request) (*Response, error) {
	return DoAnswering(client, req, nil)
}

// DoAnswering is Do, except that a 5xx that isAnswer accepts comes back to
// be read: a SOAP service answers its faults (the carrier refusing the
// call) with HTTP 500. nil accepts none, as Do.
func DoAnswering(client *http.Client, req *http.Request, isAnswer func(status int, body []byte) bool) (*Response, error) {
	if client == nil {
		client = DefaultClient
	}
	what := req.Method + " " + req.URL.Path
	if err := txguard.Check(req.Context(), "carrier call "+req.Method+" "+req.URL.Host+req.URL.Path); err != nil {
		return nil, err
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, Unavailable("%s: %v", what, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, MaxBody))
	if err != nil {
		return nil, Unavailable("%s: reading the answer: %v", what, err)
	}
	answered := res.StatusCode >= 500 && isAnswer != nil && isAnswer(res.StatusCode, body)
	if (res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500) && !answered {
		return nil, Unavailable("%s: HTTP %d %s", what, res.StatusCode, Snippet(body))
	}
	return &Response{Status: res.StatusCode, Header: res.Header, Body: body}, nil
}

// Unavailable is an error wrapping carrier.ErrUnavailable.
func Unavailable(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{carrier.ErrUnavailable}, args...)...)
}

// Snippet is the start of a body, for error messages.
func Snippet(b []byte) string {
	const max = 200
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
