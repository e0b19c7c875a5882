package dashboard

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"shipd/platform/auth"
	"shipd/platform/httpapi"
)

// API keys are managed here and with `shipd keys`; both go to platform/auth
// directly (keys are not an API resource: a key cannot make keys).
func (d *Dashboard) registerKeys(r *mux.Router) {
	r.Handle("/dashboard/keys", d.signedIn(d.keysPage)).Methods(http.MethodGet)
	r.Handle("/dashboard/keys", d.signedIn(d.createKey)).Methods(http.MethodPost)
	r.Handle("/dashboard/keys/{id}/revoke", d.signedIn(d.revokeKey)).Methods(http.MethodPost)
}

// keysView is the keys page.
type keysView struct {
	Keys        []auth.KeyInfo
	Permissions []auth.Permission // every one, for the form
	Name        string            // the form's, kept when it is refused
	Checked     []auth.Permission
	NewKey      string // shown once, right after it was made
	NewKeyName  string
}

// IsChecked reports whether the form had permission p ticked.
func (v keysView) IsChecked(p auth.Permission) bool { return slices.Contains(v.Checked, p) }

const maxKeyName = 100

func (d *Dashboard) keysPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	notice := ""
	if r.URL.Query().Get("revoked") != "" {
		notice = "The key was revoked: requests with it are refused from now on."
	}
	d.renderKeys(w, r, s, http.StatusOK, view{Notice: notice}, keysView{Checked: auth.AllPermissions})
}

func (d *Dashboard) renderKeys(w http.ResponseWriter, r *http.Request, s auth.Session, status int, v view, kv keysView) {
	keys, err := d.users.ListKeys(r.Context(), s.User.AccountName)
	if err != nil {
		d.failed(w, r, err)
		return
	}
	kv.Keys, kv.Permissions = keys, auth.AllPermissions
	v.Title, v.Nav, v.Session, v.Data = "API keys", "keys", &s, kv
	d.render(w, status, "keys", v)
}

func (d *Dashboard) createKey(w http.ResponseWriter, r *http.Request, s auth.Session) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	var perms []auth.Permission
	var fields []string
	for _, p := range r.PostForm["permissions"] {
		if !slices.Contains(auth.AllPermissions, auth.Permission(p)) {
			fields = append(fields, "permissions: there is no permission "+strings.ToValidUTF8(p, "?"))
			continue
		}
		if !slices.Contains(perms, auth.Permission(p)) {
			perms = append(perms, auth.Permission(p))
		}
	}
	switch {
	case name == "":
		fields = append(fields, "name: give the key a name, such as the shop or system that will use it")
	case utf8.RuneCountInString(name) > maxKeyName || !httpapi.StorableText(name):
		fields = append(fields, "name: at most 100 characters of text")
		name = ""
	}
	if len(perms) == 0 {
		fields = append(fields, "permissions: tick at least one")
	}
	if len(fields) > 0 {
		d.renderKeys(w, r, s, http.StatusUnprocessableEntity,
			view{Problem: "The key was not created.", Fields: fields}, keysView{Name: name, Checked: perms})
		return
	}
	_, key, err := d.users.CreateKey(r.Context(), auth.NewKeyRequest{AccountName: s.User.AccountName, Name: name, Permissions: perms})
	if err != nil {
		d.failed(w, r, err)
		return
	}
	d.renderKeys(w, r, s, http.StatusCreated, view{Notice: "Key created. Copy it now: it is shown only this once."},
		keysView{NewKey: key, NewKeyName: name, Checked: auth.AllPermissions})
}

func (d *Dashboard) revokeKey(w http.ResponseWriter, r *http.Request, s auth.Session) {
	id, ok := pathID(mux.Vars(r)["id"])
	if !ok {
		d.notYours(w, s, "active API key")
		return
	}
	err := d.users.RevokeAccountKey(r.Context(), s.User.AccountID, id)
	if errors.Is(err, auth.ErrNoActiveKey) {
		d.notYours(w, s, "active API key")
		return
	}
	if err != nil {
		d.failed(w, r, err)
		return
	}
	http.Redirect(w, r, "/dashboard/keys?revoked="+id, http.StatusSeeOther)
}
