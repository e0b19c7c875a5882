package httpapi

import (
	"net/http"

	"shipd/platform/usecase"
)

// WriteQueried answers with what q finds, in the single-resource envelope
// with status and message: a GET of one resource, or the answer to a
// command, whose result is read back through the query side.
func WriteQueried[Q any, R any](w http.ResponseWriter, r *http.Request, h usecase.QueryHandler[Q, R], q Q, status int, message string) {
	res, err := h.Handle(r.Context(), q)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteData(w, status, res, message)
}

// WriteListed answers a list GET with the page q finds, in the list
// envelope whose links keep the request's filters. baseURL is the
// configured public base URL ("" for the request's own).
func WriteListed[Q any, T any](w http.ResponseWriter, r *http.Request, h usecase.QueryHandler[Q, usecase.Page[T]], q Q, page Page, baseURL string) {
	res, err := h.Handle(r.Context(), q)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, NewList(r, BaseURL(r, baseURL), page, res.Records, len(res.Records), res.Total))
}
