package shipd

import (
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"time"
)

// IdempotencyKeyHeader is the header that makes a POST repeatable (ADR 0007):
// the same key and body answer the first answer again, with
// Idempotent-Replayed: true, instead of creating a second resource.
const IdempotencyKeyHeader = "Idempotency-Key"

// doer sits between the generated client and net/http: it authenticates,
// keys every POST, retries what may be retried, and turns every answer
// outside 2xx into an *Error, so each generated method reports failures the
// same way.
type doer struct {
	http      *http.Client
	apiKey    string
	userAgent string
	retry     retryPolicy
}

type noKeyContext struct{}

// WithoutIdempotencyKey returns a context under which a POST is sent with no
// Idempotency-Key unless the call gives one. Such a POST is not idempotent,
// so a network error is returned, never retried: the first request may have
// done its work.
func WithoutIdempotencyKey(ctx context.Context) context.Context {
	return context.WithValue(ctx, noKeyContext{}, true)
}

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	req.Header.Set("Authorization", "Bearer "+d.apiKey)
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", d.userAgent)
	}
	if req.Method == http.MethodPost && req.Header.Get(IdempotencyKeyHeader) == "" && ctx.Value(noKeyContext{}) == nil {
		// One key for every attempt of this call: a retry after a lost
		// answer is then a replay, not a second shipment.
		req.Header.Set(IdempotencyKeyHeader, "sdk-"+rand.Text())
	}
	idempotent := isIdempotent(req)
	for attempt := 0; ; attempt++ {
		try, err := rewind(req, attempt)
		if err != nil {
			return nil, err
		}
		resp, err := d.http.Do(try)
		if err != nil {
			if ctx.Err() != nil || !idempotent || attempt >= d.retry.max {
				return nil, err
			}
			if err := sleep(ctx, d.retry.backoff(attempt)); err != nil {
				return nil, err
			}
			continue
		}
		if resp.StatusCode < 400 {
			return resp, nil
		}
		if retryable(resp.StatusCode) && attempt < d.retry.max {
			if wait, ok := d.retry.wait(resp, attempt); ok {
				drain(resp)
				if err := sleep(ctx, wait); err != nil {
					return nil, err
				}
				continue
			}
		}
		return nil, errorFrom(resp)
	}
}

// rewind gives the request to send on the attempt-th try: the request itself
// first, then a copy with its body read again from the start.
func rewind(req *http.Request, attempt int) (*http.Request, error) {
	if attempt == 0 || req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	if req.GetBody == nil {
		// The generated client always builds bodies net/http can replay;
		// this is for a caller's own request editors.
		return nil, errNoRewind
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Body = body
	return r, nil
}

// drain reads what is left of an answer not returned, so its connection
// goes back to the pool.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
