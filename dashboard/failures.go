package dashboard

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"shipd/platform/auth"
)

// notYours answers a URL or form naming something the account does not
// have: another account's id looks exactly like one that never existed.
func (d *Dashboard) notYours(w http.ResponseWriter, s auth.Session, what string) {
	d.render(w, http.StatusForbidden, "home", view{Title: "Not found", Session: &s,
		Problem: "Your account has no " + what + " with that id; nothing was changed."})
}

// apiFailed answers a page whose API call failed for a reason the user cannot
// fix with the form. what names the resource the call was about ("shipment",
// "shipping channel") for the answer to an id the account does not have.
func (d *Dashboard) apiFailed(w http.ResponseWriter, r *http.Request, s auth.Session, a apiAnswer, what string) {
	if a.Status == http.StatusNotFound || a.Status == http.StatusForbidden {
		// The API answers another account's id with 403 and one that never
		// existed with 404; the dashboard's principal holds every
		// permission, so a 403 can mean nothing else. Both look the same
		// here, and the API's words ("… belongs to another account") are
		// never shown, so a page never tells whether another account's id
		// exists (ADR 0027).
		d.notYours(w, s, what)
		return
	}
	p := a.problem()
	status := a.Status
	if status < 400 {
		status = http.StatusBadGateway
	}
	d.render(w, status, "home", view{Title: "Failed", Session: &s, Problem: p.Message, Fields: p.Fields})
}

// failed answers a request the dashboard could not serve (the database or
// the API call itself failed), without saying why: the log does.
func (d *Dashboard) failed(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		return
	}
	slog.ErrorContext(r.Context(), "dashboard request failed", "err", err)
	d.render(w, http.StatusServiceUnavailable, "sign_in", view{Title: "Unavailable",
		Problem: "The dashboard cannot answer right now. Please try again shortly."})
}
