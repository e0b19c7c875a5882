package apptest

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"shipd/deploy"
)

// StartProxy runs nginx (Debian's package; .ci/run installs it) with
// deploy/nginx/shipd.conf, each module's upstream pointed at its processes
// (module name to host:port, one or more), on a private port until the
// test ends, and returns its base URL.
func StartProxy(t testing.TB, upstreams map[string][]string) string {
	t.Helper()
	bin, conf := proxySetup(t, upstreams)
	// FreeAddr's port is free when it answers, not when nginx binds it: a
	// test beside this one may take it meanwhile, nginx then exits, and
	// the port answers for another server. So the proxy is known by a
	// header of its own, and started again on another port if need be.
	for attempt := 1; ; attempt++ {
		url, exited := startProxyOn(t, bin, conf, FreeAddr(t))
		if !exited {
			return url
		}
		if attempt == 5 {
			t.Fatalf("nginx could not listen on a free port in %d tries", attempt)
		}
	}
}

// StartProxyAt is StartProxy on addr, an address the caller had to know
// before (the PUBLIC_BASE_URL of the processes behind it); a port taken
// meanwhile fails the test.
func StartProxyAt(t testing.TB, upstreams map[string][]string, addr string) string {
	t.Helper()
	bin, conf := proxySetup(t, upstreams)
	url, exited := startProxyOn(t, bin, conf, addr)
	if exited {
		t.Fatalf("nginx could not listen on %s (taken since it was chosen)", addr)
	}
	return url
}

// proxySetup finds nginx and writes its configuration for upstreams.
func proxySetup(t testing.TB, upstreams map[string][]string) (bin, conf string) {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/nginx"); err != nil {
			t.Fatal("nginx is not installed (Debian package nginx-light; .ci/run installs it)")
		}
	}
	conf, err = proxyConf(upstreams)
	if err != nil {
		t.Fatal(err)
	}
	return bin, conf
}

// startProxyOn runs nginx with conf on addr until the test ends; exited
// reports that it stopped before serving (its port was taken).
func startProxyOn(t testing.TB, bin, conf, addr string) (url string, exited bool) {
	t.Helper()
	token := rand.Text()
	conf = strings.Replace(conf, "listen 127.0.0.1:8080;", "listen "+addr+";\n    add_header X-Apptest-Proxy "+token+" always;", 1)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "shipd.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // its workers write request bodies under dir, which is root's
	}
	main := fmt.Sprintf(`daemon off;
%[2]s
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 512; }
http {
    access_log off;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    include %[1]s/shipd.conf;
}
`, dir, user)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-e", filepath.Join(dir, "error.log"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		<-done
	})
	url = "http://" + addr
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := http.Get(url + "/v1/openapi.json")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK && res.Header.Get("X-Apptest-Proxy") == token {
				return url, false
			}
		}
		select {
		case <-done:
			return "", true
		default:
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx did not serve within 10s: %v\n%s", err, log)
		}
		time.Sleep(20 * time.Millisecond) // between polls of nginx
	}
}

var upstreamServer = regexp.MustCompile(`upstream shipd_(\w+)\s*\{\s*server [^;]+;`)

// proxyConf is deploy/nginx/shipd.conf with each module's upstream at its
// processes' addresses.
func proxyConf(upstreams map[string][]string) (string, error) {
	var missing []string
	conf := upstreamServer.ReplaceAllStringFunc(deploy.NginxConf, func(block string) string {
		module := upstreamServer.FindStringSubmatch(block)[1]
		addrs := upstreams[module]
		if len(addrs) == 0 {
			missing = append(missing, module)
			return block
		}
		return "upstream shipd_" + module + " { server " + strings.Join(addrs, "; server ") + ";"
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("no process for the proxy's upstreams %v", missing)
	}
	return conf, nil
}
