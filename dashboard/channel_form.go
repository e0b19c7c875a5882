package dashboard

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	channelscontract "shipd/modules/channels/contract"
	"shipd/platform/auth"
)

// channelFormView is the form that creates a channel.
type channelFormView struct {
	Providers   []apiProvider
	Provider    *apiProvider // the chosen one; nil shows only the choice
	Name        string
	Description string
	Values      map[string]string   // settings key → what was typed (never a secret)
	Reasons     map[string][]string // form field ("name", "settings.clientId") → the API's reasons
	Refused     bool
}

// Value is what the form had for setting key.
func (v channelFormView) Value(key string) string { return v.Values[key] }

// ReasonsFor are the API's reasons against a form field.
func (v channelFormView) ReasonsFor(field string) []string { return v.Reasons[field] }

// HasSecrets reports whether the chosen provider has secret settings.
func (v channelFormView) HasSecrets() bool {
	if v.Provider == nil {
		return false
	}
	for _, s := range v.Provider.Settings {
		if s.Secret {
			return true
		}
	}
	return false
}

// IsSelect reports whether the form offers the setting as a list.
func (s apiSetting) IsSelect() bool { return s.Type == "boolean" || len(s.Enum) > 0 }

// Options are the values a select offers, the empty one first ("not set":
// the provider's default applies).
func (s apiSetting) Options() []string {
	if s.Type == "boolean" {
		return []string{"", "true", "false"}
	}
	return append([]string{""}, s.Enum...)
}

// InputType is the HTML input type of a setting that is not a list.
func (s apiSetting) InputType() string {
	switch {
	case s.Secret:
		return "password"
	case s.Type == "integer":
		return "number"
	}
	return "text"
}

func (d *Dashboard) newChannelPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	providers, ok := d.providers(w, r, s)
	if !ok {
		return
	}
	fv := channelFormView{Providers: providers}
	v := view{}
	if code := r.URL.Query().Get("provider"); code != "" {
		if p, ok := providerByCode(providers, code); ok {
			fv.Provider = &p
		} else {
			v.Problem = "There is no such provider: choose one of the list."
		}
	}
	d.renderChannelForm(w, s, http.StatusOK, v, fv)
}

func (d *Dashboard) renderChannelForm(w http.ResponseWriter, s auth.Session, status int, v view, fv channelFormView) {
	v.Title, v.Nav, v.Session, v.Data = "New shipping channel", "channels", &s, fv
	d.render(w, status, "channels_new", v)
}

func (d *Dashboard) createChannel(w http.ResponseWriter, r *http.Request, s auth.Session) {
	providers, ok := d.providers(w, r, s)
	if !ok {
		return
	}
	fv := channelFormView{Providers: providers, Values: map[string]string{},
		Name: strings.TrimSpace(r.PostFormValue("name")), Description: r.PostFormValue("description")}
	code := r.PostFormValue("provider")
	settings := map[string]any{}
	if p, ok := providerByCode(providers, code); ok {
		fv.Provider = &p
		for _, st := range p.Settings {
			typed := r.PostFormValue("settings." + st.Key)
			if !st.Secret {
				fv.Values[st.Key] = typed
			}
			if typed == "" {
				continue // not set: the provider's default, or the API says it is required
			}
			settings[st.Key] = settingValue(st, typed)
		}
	}
	// An unknown provider is sent as it came: the API names the problem.
	body := map[string]any{"name": fv.Name, "provider": code, "settings": settings}
	if fv.Description != "" {
		body["description"] = fv.Description
	}
	a, err := d.call(r, s, apiCall{Method: http.MethodPost, Path: "/shipping-channels", Body: body})
	if err != nil {
		d.failed(w, r, err)
		return
	}
	switch {
	case a.OK():
		var created apiOne[channelscontract.ShippingChannel]
		if err := a.decode(&created); err != nil {
			d.failed(w, r, err)
			return
		}
		id, ok := pathID(created.Data.ID)
		if !ok {
			d.failed(w, r, fmt.Errorf("dashboard: the API made a channel with the id %q", created.Data.ID))
			return
		}
		http.Redirect(w, r, "/dashboard/channels/"+id+"?created=1", http.StatusSeeOther)
	case a.Status == http.StatusBadRequest || a.Status == http.StatusUnprocessableEntity:
		p := a.problem()
		fv.Reasons, fv.Refused = p.Reasons, true
		d.renderChannelForm(w, s, http.StatusUnprocessableEntity,
			view{Problem: "The channel was not created. " + p.Message, Fields: p.Fields}, fv)
	default:
		d.apiFailed(w, r, s, a, "shipping channel")
	}
}

// settingValue is a typed form value as the setting's JSON type. What does
// not parse is sent as text, so the API names the problem with its own words.
func settingValue(st apiSetting, typed string) any {
	switch st.Type {
	case "boolean":
		if b, err := strconv.ParseBool(typed); err == nil {
			return b
		}
	case "integer":
		if n, err := strconv.ParseInt(strings.TrimSpace(typed), 10, 64); err == nil {
			return n
		}
	}
	return typed
}
