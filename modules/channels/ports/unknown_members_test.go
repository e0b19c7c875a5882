package ports_test

import (
	"net/http"
	"testing"

	"shipd"
	"shipd/platform/apptest"
)

// A misspelt member of a channel's body is refused, not dropped: each one a
// 422 naming it, on POST, PUT, PATCH and validate, and nothing is stored or
// changed. The settings' keys are the provider's schema's to judge: an
// unknown one is a 422 naming settings.<key> with the keys it knows.
func TestUnknownMembersAreRefused(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")

	with := func(extra map[string]any) map[string]any {
		b := sandboxChannel("Main")
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	env.Do(apptest.Request{Method: http.MethodPost, Path: channelsPath, Key: key, Body: with(map[string]any{"descripton": "for parcels", "bogus": true})}).
		CheckUnknownFields(t, map[string]string{
			"descripton": "unknown field; did you mean description?",
			"bogus":      "unknown field; the fields here are: name, description, provider, settings",
		})
	env.Do(apptest.Request{Method: http.MethodPost, Path: channelsPath, Key: key, Body: with(map[string]any{"settings": map[string]any{
		"clientId": "client-1", "clientSecret": "top-secret-value", "productType": "STANDARD", "clientSecrte": "x"}})}).
		CheckUnknownFields(t, map[string]string{"settings.clientSecrte": "is not a setting of provider sandbox (known: "})
	env.WantNoRows(t, "channels.channels", "channels from bodies with unknown members")

	id := createChannel(t, env, key, "Main")["id"].(string)
	path := channelsPath + "/" + id
	for _, method := range []string{http.MethodPut, http.MethodPatch} {
		env.Do(apptest.Request{Method: method, Path: path, Key: key, Body: map[string]any{"name": "Renamed", "stauts": "inactive"}}).
			CheckUnknownFields(t, map[string]string{"stauts": "unknown field; did you mean status?"})
		env.Do(apptest.Request{Method: method, Path: path, Key: key, Body: map[string]any{"settings": map[string]any{
			"clientId": "client-1", "clientSecret": "top-secret-value", "productType": "STANDARD", "mode": "live"}}}).
			CheckUnknownFields(t, map[string]string{"settings.mode": "is not a setting of provider sandbox"})
	}
	env.Do(apptest.Request{Method: http.MethodPost, Path: path + "/validate", Key: key, Body: map[string]any{"force": true}}).
		CheckUnknownFields(t, map[string]string{"force": "unknown field; this request takes no fields"})
	if got := env.Do(apptest.Request{Method: http.MethodGet, Path: path, Key: key}).Data(t); got["name"] != "Main" || got["status"] != "draft" {
		t.Errorf("refused writes changed the channel: %v", got)
	}
}
