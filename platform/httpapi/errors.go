package httpapi

import (
	"log/slog"
	"net/http"

	"shipd/platform/fault"
	"shipd/platform/postgres"
)

// ErrorBody is the one shape of every error answer. It satisfies both forms
// the spec shows: top-level message/errors and the same nested under error.
type ErrorBody struct {
	Message string              `json:"message"`
	Errors  map[string][]string `json:"errors,omitempty"`
	Error   ErrorDetail         `json:"error"`
}

// ErrorDetail is the nested part of ErrorBody.
type ErrorDetail struct {
	Code       string              `json:"code"`
	Message    string              `json:"message"`
	Status     int                 `json:"status"`
	Errors     map[string][]string `json:"errors,omitempty"`
	RequestID  string              `json:"request_id"`
	RetryAfter *int                `json:"retry_after,omitempty"`
}

var statusOf = map[fault.Kind]int{
	fault.KindInvalid:     http.StatusBadRequest,
	fault.KindNotFound:    http.StatusNotFound,
	fault.KindForbidden:   http.StatusForbidden,
	fault.KindConflict:    http.StatusConflict,
	fault.KindValidation:  http.StatusUnprocessableEntity,
	fault.KindUnavailable: http.StatusServiceUnavailable,
}

// WriteError answers with err in the error shape. Faults keep their message;
// anything else is a 500 whose cause is logged, never shown.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	fe, ok := fault.As(err)
	if !ok {
		if r.Context().Err() != nil {
			// The client went away, and the failure is most likely its
			// cancellation in whatever words reached us (context.Canceled,
			// or PostgreSQL's 57014 on a statement or the COMMIT after
			// it); nobody reads the answer.
			return
		}
		if postgres.IsUnavailable(err) {
			// Not a bug: PostgreSQL is down, restarting or out of
			// connections, and the same request will work once it is back
			// (the fault suite measures how soon).
			writeDatabaseUnavailable(w, r, err)
			return
		}
		slog.ErrorContext(r.Context(), "request failed", "err", err, "request_id", RequestID(r.Context()))
		fe = &fault.Error{Code: "internal_error", Message: "Internal server error."}
	}
	status, known := statusOf[fe.Kind]
	if !known {
		status = http.StatusInternalServerError
	}
	WriteErrorBody(w, r, status, fe.Code, fe.Message, fe.Fields)
}

// WriteErrorBody answers with an error built from its parts.
func WriteErrorBody(w http.ResponseWriter, r *http.Request, status int, code, message string, fields map[string][]string) {
	WriteJSON(w, status, NewErrorBody(r, status, code, message, fields))
}

// NewErrorBody builds the error shape (for callers that add retry_after).
func NewErrorBody(r *http.Request, status int, code, message string, fields map[string][]string) ErrorBody {
	return ErrorBody{
		Message: message,
		Errors:  fields,
		Error: ErrorDetail{
			Code: code, Message: message, Status: status, Errors: fields,
			RequestID: RequestID(r.Context()),
		},
	}
}
