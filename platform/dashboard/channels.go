package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"shipd/platform/auth"
	"shipd/platform/httpapi"
)

// Shipping channels are read, created and validated through the /v1 API
// (ADR 0027): GET and POST /v1/shipping-channels, GET /v1/shipping-channels/{id},
// POST /v1/shipping-channels/{id}/validate, and GET /v1/providers for the
// form's fields. The API decides what is valid and whose a channel is.
func (d *Dashboard) registerChannels(r *mux.Router) {
	r.Handle("/dashboard/channels", d.signedIn(d.channelsPage)).Methods(http.MethodGet)
	r.Handle("/dashboard/channels", d.signedIn(d.createChannel)).Methods(http.MethodPost)
	// Before {id}: "new" is a page, not a channel.
	r.Handle("/dashboard/channels/new", d.signedIn(d.newChannelPage)).Methods(http.MethodGet)
	r.Handle("/dashboard/channels/{id}", d.signedIn(d.channelPage)).Methods(http.MethodGet)
	r.Handle("/dashboard/channels/{id}/validate", d.signedIn(d.validateChannel)).Methods(http.MethodPost)
}

// apiChannel is a shipping channel as the API answers it (secrets masked).
type apiChannel struct {
	ID              string         `json:"id"`
	Name            string         `json:"name"`
	Description     string         `json:"description"`
	Provider        string         `json:"provider"`
	Status          string         `json:"status"`
	Settings        map[string]any `json:"settings"`
	ValidationError *string        `json:"validation_error"`
	ValidatedAt     *string        `json:"validated_at"`
	CreatedAt       string         `json:"created_at"`
	UpdatedAt       string         `json:"updated_at"`
}

// Problem is what the carrier said at the last failed validation, "" when
// nothing.
func (c apiChannel) Problem() string {
	if c.ValidationError == nil {
		return ""
	}
	return *c.ValidationError
}

// Validated is when the carrier last accepted the settings, "" when never.
func (c apiChannel) Validated() string {
	if c.ValidatedAt == nil {
		return ""
	}
	return *c.ValidatedAt
}

// apiProvider is one carrier of GET /v1/providers.
type apiProvider struct {
	Code         string           `json:"code"`
	Name         string           `json:"name"`
	Settings     []apiSetting     `json:"settings"`
	ProductTypes []apiProductType `json:"product_types"`
	LabelFormats []string         `json:"label_formats"`
	SupportsCOD  bool             `json:"supports_cod"`
}

// apiSetting is one key of a provider's settings.
type apiSetting struct {
	Key         string   `json:"key"`
	Type        string   `json:"type"` // string, boolean or integer
	Required    bool     `json:"required"`
	Secret      bool     `json:"secret"`
	Enum        []string `json:"enum"`
	Default     any      `json:"default"`
	Description string   `json:"description"`
}

// apiProductType is one carrier product.
type apiProductType struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// apiPageMeta is the pagination of a list answer.
type apiPageMeta struct {
	CurrentPage int  `json:"current_page"`
	LastPage    int  `json:"last_page"`
	PerPage     int  `json:"per_page"`
	From        *int `json:"from"`
	To          *int `json:"to"`
	Total       int  `json:"total"`
}

// labelFormatKey is the setting every provider names its default label
// format with.
const labelFormatKey = "defaultLabelFormat"

// shownValue is a setting's value as a page shows it: what the API sent, secrets
// masked by the API (the page never has more), "" when unset.
func shownValue(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(raw)
}

// DefaultText is the setting's default as text, "" when it has none.
func (s apiSetting) DefaultText() string { return shownValue(s.Default) }

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

// providerByCode finds code among providers.
func providerByCode(providers []apiProvider, code string) (apiProvider, bool) {
	for _, p := range providers {
		if p.Code == code {
			return p, true
		}
	}
	return apiProvider{}, false
}

// labelFormat is the channel's default label format: its own setting, or the
// provider's default.
func labelFormat(c apiChannel, providers []apiProvider) string {
	if f := shownValue(c.Settings[labelFormatKey]); f != "" {
		return f
	}
	if p, ok := providerByCode(providers, c.Provider); ok {
		for _, s := range p.Settings {
			if s.Key == labelFormatKey && s.DefaultText() != "" {
				return s.DefaultText() + " (provider default)"
			}
		}
	}
	return ""
}

// providers reads GET /v1/providers.
func (d *Dashboard) providers(r *http.Request, s auth.Session) ([]apiProvider, apiAnswer, error) {
	var body struct {
		Data []apiProvider `json:"data"`
	}
	a, err := d.get(r, s, "/providers", &body)
	return body.Data, a, err
}

// channelsListView is the list page.
type channelsListView struct {
	Rows      []channelRow
	Meta      apiPageMeta
	Pages     []pageLink
	Providers []apiProvider
	Status    string // the filters, kept in the page links
	Provider  string
	PerPage   string
	Statuses  []string
}

type channelRow struct {
	apiChannel
	ProviderName string
	LabelFormat  string
}

type pageLink struct {
	Label, Href string
	Current     bool
}

// channelStatuses are the statuses GET /v1/shipping-channels filters by.
var channelStatuses = []string{"draft", "active", "error", "inactive"}

func (d *Dashboard) channelsPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	in := r.URL.Query()
	filters := url.Values{}
	for _, k := range []string{"status", "provider", "per_page"} {
		if v := in.Get(k); v != "" {
			filters.Set(k, v)
		}
	}
	q := url.Values{}
	for k, v := range filters {
		q[k] = v
	}
	if p := in.Get("page"); p != "" {
		q.Set("page", p)
	}
	var list struct {
		Data []apiChannel `json:"data"`
		Meta apiPageMeta  `json:"meta"`
	}
	path := "/shipping-channels"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	a, err := d.get(r, s, path, &list)
	if err != nil {
		d.failed(w, r, err)
		return
	}
	if !a.OK() {
		d.apiFailed(w, r, s, a)
		return
	}
	providers, a, err := d.providers(r, s)
	if err != nil {
		d.failed(w, r, err)
		return
	}
	if !a.OK() {
		d.apiFailed(w, r, s, a)
		return
	}
	lv := channelsListView{Meta: list.Meta, Providers: providers, Status: filters.Get("status"),
		Provider: filters.Get("provider"), PerPage: filters.Get("per_page"), Statuses: channelStatuses}
	for _, c := range list.Data {
		row := channelRow{apiChannel: c, ProviderName: c.Provider, LabelFormat: labelFormat(c, providers)}
		if p, ok := providerByCode(providers, c.Provider); ok {
			row.ProviderName = p.Name
		}
		lv.Rows = append(lv.Rows, row)
	}
	lv.Pages = pageLinks(list.Meta, filters)
	d.render(w, http.StatusOK, "channels", view{Title: "Shipping channels", Nav: "channels", Session: &s, Data: lv})
}

// pageLinks are the list's First, Previous, Next and Last links, keeping
// the filters.
func pageLinks(m apiPageMeta, filters url.Values) []pageLink {
	if m.LastPage <= 1 && m.CurrentPage <= 1 {
		return nil
	}
	link := func(label string, page int) pageLink {
		q := url.Values{}
		for k, v := range filters {
			q[k] = v
		}
		q.Set("page", strconv.Itoa(page))
		return pageLink{Label: label, Href: "/dashboard/channels?" + q.Encode(), Current: page == m.CurrentPage}
	}
	var out []pageLink
	if m.CurrentPage > 1 {
		out = append(out, link("First", 1), link("Previous", min(m.CurrentPage-1, max(m.LastPage, 1))))
	}
	if m.CurrentPage < m.LastPage {
		out = append(out, link("Next", m.CurrentPage+1), link("Last", m.LastPage))
	}
	return out
}

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

func (d *Dashboard) newChannelPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	providers, a, err := d.providers(r, s)
	if err != nil {
		d.failed(w, r, err)
		return
	}
	if !a.OK() {
		d.apiFailed(w, r, s, a)
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
	providers, a, err := d.providers(r, s)
	if err != nil {
		d.failed(w, r, err)
		return
	}
	if !a.OK() {
		d.apiFailed(w, r, s, a)
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
	a, err = d.call(r, s, apiCall{Method: http.MethodPost, Path: "/shipping-channels", Body: body})
	if err != nil {
		d.failed(w, r, err)
		return
	}
	switch {
	case a.OK():
		var created struct {
			Data apiChannel `json:"data"`
		}
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
		fv.Reasons, fv.Refused = fieldReasons(a), true
		d.renderChannelForm(w, s, http.StatusUnprocessableEntity,
			view{Problem: "The channel was not created. " + p.Message, Fields: p.Fields}, fv)
	default:
		d.apiFailed(w, r, s, a)
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

// fieldReasons is an error answer's reasons per field.
func fieldReasons(a apiAnswer) map[string][]string {
	var body httpapi.ErrorBody
	if json.Unmarshal(a.Body, &body) != nil {
		return nil
	}
	if len(body.Error.Errors) > 0 {
		return body.Error.Errors
	}
	return body.Errors
}

// channelView is one channel's page.
type channelView struct {
	Channel      apiChannel
	ProviderName string
	LabelFormat  string
	Settings     []settingRow
}

type settingRow struct {
	Key, Value, Description, Default string
	Secret, Set                      bool
}

// settingRows are the channel's settings in the provider's order, then any
// the provider no longer describes. Values are the API's: secrets masked.
func settingRows(c apiChannel, p apiProvider, known bool) []settingRow {
	var rows []settingRow
	seen := map[string]bool{}
	if known {
		for _, st := range p.Settings {
			v, set := c.Settings[st.Key]
			seen[st.Key] = true
			rows = append(rows, settingRow{Key: st.Key, Value: shownValue(v), Description: st.Description,
				Default: st.DefaultText(), Secret: st.Secret, Set: set && v != nil})
		}
	}
	var rest []string
	for k := range c.Settings {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		rows = append(rows, settingRow{Key: k, Value: shownValue(c.Settings[k]), Set: c.Settings[k] != nil})
	}
	return rows
}

// channelOf reads one channel. ok is false when the page was answered
// already (not the account's, or the API failed).
func (d *Dashboard) channelOf(w http.ResponseWriter, r *http.Request, s auth.Session, id string) (apiChannel, bool) {
	var got struct {
		Data apiChannel `json:"data"`
	}
	a, err := d.get(r, s, "/shipping-channels/"+id, &got)
	if err != nil {
		d.failed(w, r, err)
		return apiChannel{}, false
	}
	if !a.OK() {
		d.channelCallFailed(w, r, s, a)
		return apiChannel{}, false
	}
	return got.Data, true
}

// channelCallFailed answers a failed call about one channel. The API answers
// another account's channel with 403 and an unknown one with 404; the
// session may do everything its account may, so both mean "not yours", and
// the page shows them alike.
func (d *Dashboard) channelCallFailed(w http.ResponseWriter, r *http.Request, s auth.Session, a apiAnswer) {
	if a.Status == http.StatusForbidden || a.Status == http.StatusNotFound {
		d.notYours(w, s, "shipping channel")
		return
	}
	d.apiFailed(w, r, s, a)
}

func (d *Dashboard) channelPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	id, ok := pathID(mux.Vars(r)["id"])
	if !ok {
		d.notYours(w, s, "shipping channel")
		return
	}
	c, ok := d.channelOf(w, r, s, id)
	if !ok {
		return
	}
	v := view{}
	if r.URL.Query().Get("created") != "" {
		v.Notice = "The channel was created as a draft. Validate it with the carrier to make it active."
	}
	d.renderChannel(w, r, s, http.StatusOK, v, c)
}

func (d *Dashboard) renderChannel(w http.ResponseWriter, r *http.Request, s auth.Session, status int, v view, c apiChannel) {
	providers, a, err := d.providers(r, s)
	if err != nil {
		d.failed(w, r, err)
		return
	}
	if !a.OK() {
		d.apiFailed(w, r, s, a)
		return
	}
	p, known := providerByCode(providers, c.Provider)
	cv := channelView{Channel: c, ProviderName: c.Provider, LabelFormat: labelFormat(c, providers), Settings: settingRows(c, p, known)}
	if known {
		cv.ProviderName = p.Name
	}
	v.Title, v.Nav, v.Session, v.Data = c.Name, "channels", &s, cv
	d.render(w, status, "channels_show", v)
}

func (d *Dashboard) validateChannel(w http.ResponseWriter, r *http.Request, s auth.Session) {
	id, ok := pathID(mux.Vars(r)["id"])
	if !ok {
		d.notYours(w, s, "shipping channel")
		return
	}
	a, err := d.call(r, s, apiCall{Method: http.MethodPost, Path: "/shipping-channels/" + id + "/validate"})
	if err != nil {
		d.failed(w, r, err)
		return
	}
	switch {
	case a.OK():
		var got struct {
			Data apiChannel `json:"data"`
		}
		if err := a.decode(&got); err != nil {
			d.failed(w, r, err)
			return
		}
		d.renderChannel(w, r, s, http.StatusOK,
			view{Notice: "Valid: the carrier accepted the channel's settings, and the channel is " + got.Data.Status + "."}, got.Data)
	case a.Status == http.StatusForbidden || a.Status == http.StatusNotFound:
		d.notYours(w, s, "shipping channel")
	case a.Status == http.StatusUnprocessableEntity || a.Status == http.StatusConflict || a.Status == http.StatusServiceUnavailable:
		// The carrier refused (the channel now records why), the settings
		// changed meanwhile, or the carrier could not be asked: the page
		// shows the channel as it is now, under the API's words.
		c, ok := d.channelOf(w, r, s, id)
		if !ok {
			return
		}
		p := a.problem()
		d.renderChannel(w, r, s, a.Status, view{Problem: p.Message, Fields: p.Fields}, c)
	default:
		d.apiFailed(w, r, s, a)
	}
}
