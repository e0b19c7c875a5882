package config

import (
	"fmt"
	"net/netip"
	"strings"
)

// TrustedProxyPrefixes reads TRUSTED_PROXIES: each entry an IP address (one
// host) or a CIDR. An empty entry (a stray comma) is skipped.
func (c Config) TrustedProxyPrefixes() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, raw := range c.TrustedProxies {
		entry := strings.TrimSpace(raw)
		if entry == "" {
			continue
		}
		if strings.Contains(entry, "/") {
			p, err := netip.ParsePrefix(entry)
			if err != nil {
				return nil, fmt.Errorf("TRUSTED_PROXIES: %q is not an IP address or CIDR (such as 10.0.0.0/8)", entry)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(entry)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("TRUSTED_PROXIES: %q is not an IP address or CIDR (such as 10.0.0.0/8)", entry)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
