package idempotency

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/jmoiron/sqlx"

	"shipd/platform/failpoint"
	"shipd/platform/fault"
	"shipd/platform/httpapi"
	"shipd/platform/postgres"
)

// claim is a key this request holds.
type claim struct{ account, key, token string }

// serveClaimed runs the request under a claimed key as one atomic phase
// (ADR 0007): every write the handler makes joins one transaction, the
// answer is stored in that same transaction, and only after the commit does
// the client hear it. A crash before the commit leaves nothing but a claim
// whose holder is gone, which the next request with the key takes over; a
// crash after it leaves the resource and its answer, which the retry
// replays. A 5xx answer is not stored: the key is released; nor is a 4xx
// whose handler wrote nothing.
func (s *Store) serveClaimed(w http.ResponseWriter, r *http.Request, next http.Handler, c claim) {
	ctx, scope := postgres.WithScope(r.Context(), s.db)
	// The key must not stay claimed when the client leaves or the handler
	// fails, so what follows the handler runs on a context of its own.
	after := context.WithoutCancel(ctx)
	ans := &answer{header: w.Header().Clone()}
	defer func() {
		if p := recover(); p != nil {
			scope.Rollback()
			s.release(after, c)
			panic(p)
		}
	}()
	next.ServeHTTP(ans, r.WithContext(ctx))
	// A refusal that changed nothing (a body the route could not read, a
	// field refused, a resource of another account) is not stored, as
	// Stripe stores no result for a request that never started executing:
	// the same request may be made again, by a key that may, once the
	// problem is gone.
	refusedUnchanged := ans.status >= 400 && ans.status < 500 && !scope.Wrote()
	if ans.status >= 500 || ans.status == 0 || refusedUnchanged {
		// What the handler chose to keep before failing stays, as it
		// would without a key (a refresh records its failed check); the
		// key goes with it, so a retry runs again.
		if err := scope.Commit(after, func(tx *sqlx.Tx) error { return s.Release(after, tx, c.account, c.key, c.token) }); err != nil {
			slog.ErrorContext(after, "releasing an idempotency key", "err", err, "request_id", httpapi.RequestID(after))
		}
		ans.sendTo(w)
		return
	}
	err := scope.Commit(after, func(tx *sqlx.Tx) error {
		return s.Complete(after, tx, c.account, c.key, c.token, Stored{Status: ans.status, Header: ans.header, Body: ans.body.Bytes()})
	})
	switch {
	case errors.Is(err, errClaimLost):
		httpapi.WriteError(w, r, fault.Conflict("conflict", "Another request with this Idempotency-Key took it over; nothing of this one was kept. Retry to get its answer."))
		return
	case err != nil:
		s.release(after, c)
		slog.ErrorContext(after, "committing an idempotent request", "err", err, "request_id", httpapi.RequestID(after))
		if !postgres.IsUnavailable(err) {
			err = fault.Unavailable("The request could not be committed; nothing was kept. Retry with the same Idempotency-Key.")
		}
		httpapi.WriteError(w, r, err)
		return
	}
	_ = failpoint.Hit(failpoint.AfterIdempotentCommit) // only a test's Stop returns; the answer is committed either way
	ans.sendTo(w)
}

func (s *Store) release(ctx context.Context, c claim) {
	if err := s.Release(ctx, s.db, c.account, c.key, c.token); err != nil {
		slog.ErrorContext(ctx, "releasing an idempotency key", "err", err, "request_id", httpapi.RequestID(ctx))
	}
}

// answer holds the handler's answer until its writes have committed: until
// then the client must hear nothing, since the answer may yet be undone.
type answer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (a *answer) Header() http.Header { return a.header }

func (a *answer) WriteHeader(code int) {
	if a.status == 0 {
		a.status = code
	}
}

func (a *answer) Write(b []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	return a.body.Write(b)
}

func (a *answer) sendTo(w http.ResponseWriter) {
	for k, v := range a.header {
		w.Header()[k] = v
	}
	if a.status == 0 {
		a.status = http.StatusOK
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body.Bytes())
}
