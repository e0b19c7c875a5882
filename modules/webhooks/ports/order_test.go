package ports_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"shipd"
	"shipd/platform/apptest"
)

// Many channels changed at once through the API, each by its own client in
// sequence: the receiver gets every channel's events in the order they
// happened (created, then each rename in turn), whatever the interleaving
// across channels and however many delivery slots send at once.
func TestEachResourcesEventsReachTheReceiverInOrder(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	rc := newReceiver(t, answering(http.StatusNoContent))
	subscribe(t, env, key, map[string]any{"name": "order", "url": rc.URL,
		"events": []string{"shipping_channel.created", "shipping_channel.updated"}})

	const channels, renames = 10, 8
	var wg sync.WaitGroup
	for c := range channels {
		wg.Go(func() {
			id := newChannel(t, env, key, fmt.Sprintf("c%d-rev-0", c))
			for r := 1; r <= renames; r++ {
				res := env.Do(apptest.Request{Method: http.MethodPatch, Path: "/v1/shipping-channels/" + id, Key: key,
					Body: map[string]any{"name": fmt.Sprintf("c%d-rev-%d", c, r)}})
				if res.Status != http.StatusOK {
					t.Errorf("rename %s: %d %s", id, res.Status, res.Body)
					return
				}
			}
		})
	}
	wg.Wait()
	got := rc.await(t, channels*(renames+1))

	seen := map[string][]string{} // channel prefix → revisions in arrival order
	for _, r := range got {
		var d struct {
			Type string `json:"type"`
			Data struct {
				ShippingChannel struct {
					Name string `json:"name"`
				} `json:"shipping_channel"`
			} `json:"data"`
		}
		if err := json.Unmarshal(r.Body, &d); err != nil {
			t.Fatal(err)
		}
		c, rev, _ := strings.Cut(d.Data.ShippingChannel.Name, "-rev-")
		seen[c] = append(seen[c], d.Type[len("shipping_channel."):]+":"+rev)
	}
	for c := range channels {
		want := []string{"created:0"}
		for r := 1; r <= renames; r++ {
			want = append(want, fmt.Sprintf("updated:%d", r))
		}
		if got := seen[fmt.Sprintf("c%d", c)]; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("channel c%d's events arrived as %v, want %v", c, got, want)
		}
	}
}
