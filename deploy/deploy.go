// Package deploy holds what running shipd outside its binary takes: the
// reverse proxy's configuration for module processes (ADR 0033). The tests
// of the split topology run nginx with this very file.
package deploy

import _ "embed"

// NginxConf is nginx/shipd.conf: the route table of the module processes.
//
//go:embed nginx/shipd.conf
var NginxConf string
