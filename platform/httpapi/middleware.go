package httpapi

import (
	"context"
	"crypto/rand"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/gorilla/mux"
)

type ctxKey int

const requestIDKey ctxKey = iota

// RequestID returns the id of the request being served.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// WithRequestID gives every request an id (the caller's X-Request-Id when it
// is sane, else a new one) and returns it in X-Request-Id.
func WithRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID(id) {
			id = "req_" + rand.Text()
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey, id)))
	})
}

// saneRequestID accepts ids a log line can carry safely: 1 to 128 letters,
// digits, '-', '_' or '.'.
func saneRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// RequestSummary is what the access log knows of an answered request.
type RequestSummary struct {
	Method   string
	Route    string // the matched route template; "" when no route matched
	Status   int
	Duration time.Duration
}

// RequestObserver is told of every answered request (the metrics).
type RequestObserver func(RequestSummary)

// WithAccessLog writes one JSON log line per request: method, route
// template, status, duration, the client address (RequestOrigin). Never headers or bodies, which hold secrets.
// Each observer is told the same facts.
func WithAccessLog(logger *slog.Logger, observers ...RequestObserver) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			rec := &statusRecorder{ResponseWriter: w}
			info := &requestInfo{}
			next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, info)))
			took := time.Since(start)
			if rec.status == 0 {
				rec.status = http.StatusOK // a handler that wrote nothing answered 200
			}
			logger.LogAttrs(r.Context(), slog.LevelInfo, "http request",
				slog.String("method", r.Method),
				slog.String("route", info.route),
				slog.Int("status", rec.status),
				slog.Float64("duration_ms", float64(took.Microseconds())/1000),
				slog.String("request_id", RequestID(r.Context())),
				slog.String("account_id", info.accountID),
				slog.String("client", ClientAddress(r)),
			)
			for _, observe := range observers {
				observe(RequestSummary{Method: r.Method, Route: info.route, Status: rec.status, Duration: took})
			}
		})
	}
}

type requestInfoKey struct{}

// requestInfo lets inner layers tell the access log what they learnt.
type requestInfo struct {
	route     string
	accountID string
}

// NoteAccount records the authenticated account for the access log.
func NoteAccount(ctx context.Context, accountID string) {
	if info, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		info.accountID = accountID
	}
}

// noteRoute records the matched route template (never the raw path, whose
// ids would make every line unique).
func noteRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info, ok := r.Context().Value(requestInfoKey{}).(*requestInfo); ok {
			if route := mux.CurrentRoute(r); route != nil {
				info.route, _ = route.GetPathTemplate()
			}
		}
		next.ServeHTTP(w, r)
	})
}

// WithRecovery turns a panic into a logged 500 in the error shape.
func WithRecovery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				slog.ErrorContext(r.Context(), "panic while serving", "panic", p, "stack", string(debug.Stack()),
					"request_id", RequestID(r.Context()))
				WriteErrorBody(w, r, http.StatusInternalServerError, "internal_error", "Internal server error.", nil)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// WithBodyLimit caps request bodies at MaxBodyBytes.
func WithBodyLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxBodyBytes {
			WriteErrorBody(w, r, http.StatusBadRequest, "invalid_request", "The request body is larger than 1 MiB.", nil)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// RequireJSON refuses POST, PUT and PATCH requests whose Content-Type is not
// application/json. A POST with no body at all (an action such as validate)
// needs none.
func RequireJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			ct := r.Header.Get("Content-Type")
			if ct == "" && r.ContentLength == 0 && r.Method == http.MethodPost {
				break
			}
			mt, _, err := mime.ParseMediaType(ct)
			if err != nil || mt != "application/json" {
				WriteErrorBody(w, r, http.StatusBadRequest, "invalid_request", "Content-Type must be application/json.", nil)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
