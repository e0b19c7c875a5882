package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/lib/pq"

	"shipd/platform/fault"
	"shipd/platform/httpapi"
	"shipd/platform/logtest"
)

// errorBody is the decoded error shape of ADR 0004.
type errorBody struct {
	Message string              `json:"message"`
	Errors  map[string][]string `json:"errors"`
	Error   struct {
		Code       string              `json:"code"`
		Message    string              `json:"message"`
		Status     int                 `json:"status"`
		Errors     map[string][]string `json:"errors"`
		RequestID  string              `json:"request_id"`
		RetryAfter *int                `json:"retry_after"`
	} `json:"error"`
}

// readError checks that rec holds an error answer with status and returns
// its body, after checking that both forms of the shape agree.
func readError(t *testing.T, rec *httptest.ResponseRecorder, status int) errorBody {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status = %d, want %d; body %s", rec.Code, status, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var body errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, rec.Body)
	}
	if body.Error.Status != status {
		t.Errorf("error.status = %d, want %d", body.Error.Status, status)
	}
	if body.Message == "" || body.Message != body.Error.Message {
		t.Errorf("message %q and error.message %q should be equal and set", body.Message, body.Error.Message)
	}
	if !reflect.DeepEqual(body.Errors, body.Error.Errors) {
		t.Errorf("errors %v and error.errors %v differ", body.Errors, body.Error.Errors)
	}
	if body.Error.Code == "" {
		t.Error("error.code is empty")
	}
	return body
}

// serveError answers one request with err behind WithRequestID.
func serveError(err error) *httptest.ResponseRecorder {
	h := httpapi.WithRequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteError(w, r, err)
	}))
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/v1/things", nil)
	req.Header.Set("X-Request-Id", "req-from-client")
	h.ServeHTTP(rec, req)
	return rec
}

func TestWriteErrorValidation(t *testing.T) {
	rec := serveError(fmt.Errorf("creating: %w", fault.Field("parcels.1.weight_amount", "must be greater than 0")))
	body := readError(t, rec, http.StatusUnprocessableEntity)

	want := map[string][]string{"parcels.1.weight_amount": {"must be greater than 0"}}
	if !reflect.DeepEqual(body.Errors, want) {
		t.Errorf("errors = %v, want %v", body.Errors, want)
	}
	if body.Error.Code != "validation_failed" || body.Message != "The given data was invalid." {
		t.Errorf("code %q, message %q", body.Error.Code, body.Message)
	}
	if body.Error.RequestID != "req-from-client" {
		t.Errorf("error.request_id = %q, want the request's id", body.Error.RequestID)
	}
	if body.Error.RetryAfter != nil {
		t.Errorf("retry_after = %d on a validation error", *body.Error.RetryAfter)
	}
}

func TestWriteErrorStatusPerKind(t *testing.T) {
	tests := []struct {
		err    error
		status int
		code   string
	}{
		{fault.Invalid("bad"), http.StatusBadRequest, "invalid_request"},
		{fault.NotFound("Shipment"), http.StatusNotFound, "not_found"},
		{fault.Forbidden("no"), http.StatusForbidden, "forbidden"},
		{fault.Conflict("label_not_available", "later"), http.StatusConflict, "label_not_available"},
		{fault.Unavailable("carrier down"), http.StatusServiceUnavailable, "provider_unavailable"},
		{&fault.Error{Code: "odd", Message: "no kind"}, http.StatusInternalServerError, "odd"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			body := readError(t, serveError(tt.err), tt.status)
			if body.Error.Code != tt.code {
				t.Errorf("code = %q, want %q", body.Error.Code, tt.code)
			}
			if body.Errors != nil {
				t.Errorf("errors = %v, want none", body.Errors)
			}
		})
	}
}

func TestWriteErrorPlainErrorIsHidden(t *testing.T) {
	logs := logtest.Capture(t)
	rec := serveError(errors.New("pq: password authentication failed for user shipd"))
	body := readError(t, rec, http.StatusInternalServerError)

	if body.Error.Code != "internal_error" {
		t.Errorf("code = %q, want internal_error", body.Error.Code)
	}
	if strings.Contains(rec.Body.String(), "password") {
		t.Errorf("the body shows the cause: %s", rec.Body)
	}
	if !strings.Contains(logs.String(), "password authentication failed") || !strings.Contains(logs.String(), "req-from-client") {
		t.Errorf("the cause and request id were not logged: %q", logs)
	}
}

// A database that cannot be reached is a 503 the client may retry, not a
// 500: the same request works once PostgreSQL is back.
func TestWriteErrorDatabaseUnavailable(t *testing.T) {
	logtest.Capture(t)
	down := &net.OpError{Op: "dial", Net: "unix", Err: os.NewSyscallError("connect", syscall.ENOENT)}
	rec := serveError(fmt.Errorf("counting request: %w", down))
	body := readError(t, rec, http.StatusServiceUnavailable)
	if body.Error.Code != "service_unavailable" || rec.Header().Get("Retry-After") == "" {
		t.Errorf("code %q, Retry-After %q", body.Error.Code, rec.Header().Get("Retry-After"))
	}
	if strings.Contains(rec.Body.String(), "unix") {
		t.Errorf("the body shows the cause: %s", rec.Body)
	}
}

func TestWriteJSON(t *testing.T) {
	rec := httptest.NewRecorder()
	httpapi.WriteData(rec, http.StatusCreated, map[string]string{"id": "sh_1"}, "Created")
	if rec.Code != http.StatusCreated || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, content type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if got := strings.TrimSpace(rec.Body.String()); got != `{"data":{"id":"sh_1"},"message":"Created"}` {
		t.Errorf("body = %s", got)
	}

	rec = httptest.NewRecorder()
	logtest.Capture(t)
	httpapi.WriteJSON(rec, http.StatusOK, map[string]any{"bad": func() {}})
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("an unencodable value answered %d, want 500", rec.Code)
	}
}

// PostgreSQL out of connection slots is a 503 with Retry-After too, and a
// hundred such answers make one log line, which names the cause.
func TestWriteErrorNoConnectionSlotLogsOnce(t *testing.T) {
	httpapi.ForgetDatabaseTrouble()
	logs := logtest.Capture(t)
	full := fmt.Errorf("begin: %w", &pq.Error{Code: "53300", Message: "sorry, too many clients already"})
	for i := range 100 {
		rec := serveError(full)
		body := readError(t, rec, http.StatusServiceUnavailable)
		if body.Error.Code != "service_unavailable" || rec.Header().Get("Retry-After") != "1" || !strings.Contains(body.Message, "no free connection") {
			t.Fatalf("answer %d: code %q, Retry-After %q, message %q", i, body.Error.Code, rec.Header().Get("Retry-After"), body.Message)
		}
	}
	lines := strings.Count(strings.TrimSpace(logs.String()), "\n") + 1
	if lines != 1 || !strings.Contains(logs.String(), "no connection slot left") || !strings.Contains(logs.String(), "DATABASE_MAX_CONNS") {
		t.Errorf("%d log lines for 100 answers, want 1 naming the cause:\n%s", lines, logs)
	}
}

// A client that hung up gets no answer and makes no error line, whatever
// words its cancellation reached the handler in (PostgreSQL's 57014 on the
// COMMIT after a cancelled statement).
func TestWriteErrorForAClientThatWentAwayIsSilent(t *testing.T) {
	logs := logtest.Capture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPatch, "/v1/things/1", nil).WithContext(ctx)
	httpapi.WriteError(rec, req, fmt.Errorf("commit: %w", &pq.Error{Code: "57014", Message: "canceling statement due to user request"}))
	if rec.Body.Len() != 0 || logs.Len() != 0 {
		t.Errorf("answered %q and logged %q for a client that went away", rec.Body, logs)
	}
}
