package shipd

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Error is every answer of shipd outside 2xx, read from its one error shape
// (ADR 0004). Get it with errors.As:
//
//	var e *shipd.Error
//	if errors.As(err, &e) && e.Code == "validation_failed" { … e.Fields["parcels.0.weight_amount"] … }
type Error struct {
	Status    int                 // the HTTP status
	Code      string              // shipd's code: validation_failed, not_found, rate_limit_exceeded, …
	Message   string              // for people
	Fields    map[string][]string // per field (a dotted path such as settings.clientSecret), the reasons; nil when none
	RequestID string              // X-Request-Id: quote it when asking about a request
	// RetryAfter is the answer's Retry-After (429, 503), 0 without one. The
	// client has already waited and retried as far as its options allow.
	RetryAfter time.Duration
	// Body is the answer as received (at most 1 MiB), for an answer that is
	// not in the error shape (a proxy's page).
	Body []byte
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "shipd: %d", e.Status)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if len(e.Fields) > 0 {
		names := make([]string, 0, len(e.Fields))
		for f := range e.Fields {
			names = append(names, f)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, f := range names {
			parts[i] = f + ": " + strings.Join(e.Fields[f], ", ")
		}
		b.WriteString(" (" + strings.Join(parts, "; ") + ")")
	}
	if e.RequestID != "" {
		b.WriteString(" [" + e.RequestID + "]")
	}
	return b.String()
}

// errorFrom reads an error answer and closes its body.
func errorFrom(resp *http.Response) *Error {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	e := &Error{Status: resp.StatusCode, Body: body, RequestID: resp.Header.Get("X-Request-Id")}
	e.RetryAfter, _ = retryAfter(resp.Header, time.Now())
	var shape ErrorBody
	if json.Unmarshal(body, &shape) == nil && shape.Error.Code != "" {
		e.Code, e.Message = shape.Error.Code, shape.Error.Message
		if shape.Error.RequestId != "" {
			e.RequestID = shape.Error.RequestId
		}
		switch {
		case shape.Error.Errors != nil:
			e.Fields = *shape.Error.Errors
		case shape.Errors != nil:
			e.Fields = *shape.Errors
		}
		return e
	}
	e.Message = http.StatusText(resp.StatusCode)
	return e
}
