package auth

import (
	"fmt"
	"slices"
	"strings"
)

// Permission lets a key read or write one kind of resource.
type Permission string

// Every permission a key can hold.
const (
	ChannelsRead   Permission = "channels:read"
	ChannelsWrite  Permission = "channels:write"
	ShipmentsRead  Permission = "shipments:read"
	ShipmentsWrite Permission = "shipments:write"
	TrackingRead   Permission = "tracking:read"
	TrackingWrite  Permission = "tracking:write"
	WebhooksRead   Permission = "webhooks:read"
	WebhooksWrite  Permission = "webhooks:write"
)

// AllPermissions is what a key gets when none are named.
var AllPermissions = []Permission{
	ChannelsRead, ChannelsWrite, ShipmentsRead, ShipmentsWrite,
	TrackingRead, TrackingWrite, WebhooksRead, WebhooksWrite,
}

// ParsePermissions reads a comma-separated list; empty means all.
func ParsePermissions(list string) ([]Permission, error) {
	if strings.TrimSpace(list) == "" {
		return AllPermissions, nil
	}
	var out []Permission
	for _, p := range strings.Split(list, ",") {
		perm := Permission(strings.TrimSpace(p))
		if !slices.Contains(AllPermissions, perm) {
			return nil, fmt.Errorf("unknown permission %q (known: %s)", perm, joinPermissions(AllPermissions))
		}
		if !slices.Contains(out, perm) {
			out = append(out, perm)
		}
	}
	return out, nil
}

func joinPermissions(ps []Permission) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ",")
}
