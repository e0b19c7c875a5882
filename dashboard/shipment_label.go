package dashboard

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"shipd/platform/auth"
)

// shipmentLabel answers the label file as the API has it, to save.
func (d *Dashboard) shipmentLabel(w http.ResponseWriter, r *http.Request, s auth.Session) {
	id, a, ok := d.labelFile(w, r, s)
	if !ok {
		return
	}
	if a.Status == http.StatusNotFound {
		d.render(w, http.StatusNotFound, "home", view{Title: "No label", Nav: "shipments", Session: &s, Problem: a.problem().Message})
		return
	}
	contentType := a.Header.Get("Content-Type")
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	disposition := a.Header.Get("Content-Disposition")
	if !strings.HasPrefix(disposition, "attachment") {
		disposition = `attachment; filename="` + id + `.label"`
	}
	w.Header().Set("Content-Disposition", disposition)
	answerFile(w, contentType, a.Body)
}

// shipmentLabelPNG answers the first page of a PDF label as a PNG image
// (ADR 0028), or a short text saying why there is none: the URL is an
// <img>'s, so an HTML page would show as a broken image.
func (d *Dashboard) shipmentLabelPNG(w http.ResponseWriter, r *http.Request, s auth.Session) {
	id, a, ok := d.labelFile(w, r, s)
	if !ok {
		return
	}
	if a.Status == http.StatusNotFound {
		plainText(w, http.StatusNotFound, "No label: "+a.problem().Message)
		return
	}
	format := labelFormatOf(a.Header.Get("Content-Type"))
	previews := labelPreviews()
	if err := previews.unavailable(format); err != nil {
		plainText(w, http.StatusNotFound, noPreviewReason(format, err))
		return
	}
	img, err := previews.png(r.Context(), a.Body)
	switch {
	case err == nil:
	case r.Context().Err() != nil:
		return // the browser went away
	case errors.Is(err, errPreviewBusy):
		w.Header().Set("Retry-After", "5")
		plainText(w, http.StatusServiceUnavailable, "No preview: "+err.Error()+".")
		return
	default:
		slog.WarnContext(r.Context(), "dashboard: drawing a label preview", "shipment", id, "err", err)
		plainText(w, http.StatusNotFound, "No preview: the label could not be drawn as an image. Download it instead.")
		return
	}
	answerFile(w, "image/png", img)
}

// labelFile reads the raw label of the URL's shipment. It answers the
// request itself (ok false) unless the API gave the file or said the label
// is not there yet (a 404 label_not_available, returned for the caller to
// answer: in a page, or as text where an image was asked for).
func (d *Dashboard) labelFile(w http.ResponseWriter, r *http.Request, s auth.Session) (string, apiAnswer, bool) {
	id, ok := pathID(mux.Vars(r)["id"])
	if !ok {
		d.notYours(w, s, "shipment")
		return "", apiAnswer{}, false
	}
	a, err := d.call(r, s, apiCall{Method: http.MethodGet, Path: "/shipments/" + id + "/label?download=true"})
	if err != nil {
		d.failed(w, r, err)
		return "", apiAnswer{}, false
	}
	if a.OK() || a.problem().Code == "label_not_available" {
		return id, a, true
	}
	d.apiFailed(w, r, s, a, "shipment")
	return "", apiAnswer{}, false
}

// answerFile answers body as it is; the browser must not guess another
// type for it, nor keep it.
func answerFile(w http.ResponseWriter, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// labelFormatOf is the label format of a media type the API answers.
func labelFormatOf(contentType string) string {
	switch mediaType, _, _ := strings.Cut(contentType, ";"); strings.TrimSpace(strings.ToLower(mediaType)) {
	case "application/pdf":
		return "pdf"
	case "application/x-zpl":
		return "zpl"
	case "application/x-epl":
		return "epl"
	}
	return ""
}

// noPreviewReason says why a label of format has no preview.
func noPreviewReason(format string, err error) string {
	switch {
	case errors.Is(err, errPreviewFormat) && format != "":
		return "No preview for " + strings.ToUpper(format) + " labels: download the label to print it."
	case errors.Is(err, errPreviewFormat):
		return "No preview for labels of this format: download the label to print it."
	}
	return "No preview: " + err.Error() + ". Download the label to see it."
}

// plainText answers a short plain text, for URLs the page uses as images.
func plainText(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = fmt.Fprintln(w, msg)
}
