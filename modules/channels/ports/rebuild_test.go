package ports_test

import (
	"net/http"
	"strings"
	"testing"

	"shipd"
	"shipd/platform/apptest"
)

// Every answer of the channel list a client could ask for: each page, each filter.
var channelListPaths = []string{
	channelsPath, channelsPath + "?per_page=2", channelsPath + "?per_page=2&page=2", channelsPath + "?per_page=2&page=3",
	channelsPath + "?status=active", channelsPath + "?status=inactive", channelsPath + "?status=error",
	channelsPath + "?status=draft", channelsPath + "?provider=sandbox&per_page=1&page=4",
}

func TestRebuiltChannelListAnswersAsBeforeCorruption(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	do := func(method, path string, body any, want int) {
		t.Helper()
		if res := env.Do(apptest.Request{Method: method, Path: path, Key: key, Body: body}); res.Status != want {
			t.Fatalf("%s %s: %d %s", method, path, res.Status, res.Body)
		}
	}
	active := env.ActiveSandboxChannel(key, "Active", nil)
	paused := env.ActiveSandboxChannel(key, "Paused", nil)
	do(http.MethodPut, channelsPath+"/"+paused, map[string]any{"status": "inactive"}, http.StatusOK)
	refused := createChannel(t, env, key, "Refused")["id"].(string)
	do(http.MethodPatch, channelsPath+"/"+refused, map[string]any{"settings": map[string]any{"clientSecret": "invalid"}}, http.StatusOK)
	do(http.MethodPost, channelsPath+"/"+refused+"/validate", nil, http.StatusUnprocessableEntity)
	edited := createChannel(t, env, key, "Edited")["id"].(string)
	do(http.MethodPatch, channelsPath+"/"+edited, map[string]any{"description": "second thoughts"}, http.StatusOK)
	deleted := createChannel(t, env, key, "Deleted")["id"].(string)
	do(http.MethodDelete, channelsPath+"/"+deleted, nil, http.StatusOK)
	env.ActiveSandboxChannel(env.NewKey("globex"), "Theirs", nil)

	before := env.Settled(key, func(answers string) bool {
		return strings.Contains(answers, `"total":4`) && strings.Contains(answers, "second thoughts") && !strings.Contains(answers, deleted)
	}, channelListPaths...)
	if _, err := env.DB.Exec(`DELETE FROM channels.channel_list WHERE id = $1;`, active); err != nil {
		t.Fatal(err)
	}
	if _, err := env.DB.Exec(`UPDATE channels.channel_list SET status = 'active', record = '{"id":"garbage"}' WHERE id = $1`, refused); err != nil {
		t.Fatal(err)
	}
	if _, err := env.DB.Exec(`UPDATE channels.channel_list SET deleted = false WHERE id = $1`, deleted); err != nil {
		t.Fatal(err)
	}
	if env.CorruptedAnswers(key, channelListPaths...) == before {
		t.Fatal("corrupting the read model changed no answer")
	}

	report, err := env.Projections("channels").Rebuild(t.Context(), "channels.channel_list", nil)
	if err != nil {
		t.Fatal(err)
	}
	if after := env.Answers(key, channelListPaths...); after != before {
		t.Errorf("after the rebuild the list answers differently than before the corruption:\n%s", apptest.DiffLines(before, after))
	}
	var events int64
	if err := env.DB.Get(&events, `SELECT (SELECT count(*) FROM (SELECT * FROM "watermill_channels" WHERE metadata->>'name' = 'shipping_channel.created') e) + (SELECT count(*) FROM (SELECT * FROM "watermill_channels" WHERE metadata->>'name' = 'shipping_channel.updated') e)
		+ (SELECT count(*) FROM (SELECT * FROM "watermill_channels" WHERE metadata->>'name' = 'shipping_channel.validated') e) + (SELECT count(*) FROM (SELECT * FROM "watermill_channels" WHERE metadata->>'name' = 'shipping_channel.status_changed') e)
		+ (SELECT count(*) FROM (SELECT * FROM "watermill_channels" WHERE metadata->>'name' = 'shipping_channel.deleted') e)`); err != nil {
		t.Fatal(err)
	}
	if report.Events != events {
		t.Errorf("replayed %d events, the topics hold %d", report.Events, events)
	}
}
