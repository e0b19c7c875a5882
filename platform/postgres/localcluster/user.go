package localcluster

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// serverUser is the OS user the cluster's files belong to and its programs
// run as. PostgreSQL refuses to run as root, so root hands off to "postgres".
type serverUser struct {
	name       string
	uid        int
	gid        int
	groups     []uint32
	home       string
	switchUser bool // root: drop to this user for server programs
}

func currentServerUser() (*serverUser, error) {
	if os.Geteuid() != 0 {
		return &serverUser{uid: os.Geteuid(), gid: os.Getegid()}, nil
	}
	u, err := user.Lookup(superuser)
	if err != nil {
		return nil, fmt.Errorf("running as root, but PostgreSQL refuses root and there is no %q OS user to run it as (%v): install the PostgreSQL server (apt-get install postgresql creates it) or set DATABASE_URL", superuser, err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("OS user %q: %w", superuser, err)
	}
	if uid == 0 {
		return nil, fmt.Errorf("OS user %q has uid 0; PostgreSQL refuses to run as root", superuser)
	}
	su := &serverUser{name: u.Username, uid: uid, gid: gid, home: u.HomeDir, switchUser: true}
	if ids, err := u.GroupIds(); err == nil {
		for _, id := range ids {
			if n, err := strconv.ParseUint(id, 10, 32); err == nil {
				su.groups = append(su.groups, uint32(n))
			}
		}
	}
	return su, nil
}

// command runs in dir (a cluster directory) because the server user may not
// be able to access our working directory.
func (su *serverUser) command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	// SIGTERM first lets initdb and pg_ctl clean up after themselves.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	// Own process group: a Ctrl-C aimed at shipd must not also hit a
	// postmaster that pg_ctl starts and that should outlive us.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Env = os.Environ()
	if su.switchUser {
		cmd.SysProcAttr.Credential = &syscall.Credential{
			Uid: uint32(su.uid), Gid: uint32(su.gid), Groups: su.groups,
		}
		cmd.Env = append(cmd.Env, "HOME="+su.home, "USER="+su.name, "LOGNAME="+su.name)
	}
	return cmd
}

// checkReachable fails early with an actionable message instead of letting
// initdb or the server die with "permission denied" deep inside a log.
// Ancestors are never chmodded: widening access to e.g. /root is not ours to do.
func (su *serverUser) checkReachable(dir string) error {
	if !su.switchUser {
		return nil
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(dir))
	if err != nil {
		return err
	}
	for p := parent; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if !su.canSearch(fi) {
			return fmt.Errorf("PostgreSQL runs as OS user %q (it refuses root), but that user cannot enter %s (mode %#o), which contains the data dir %s: set DATABASE_URL to use an existing server, or move the checkout (or data dir) below a directory other users can traverse, e.g. /srv or /home/<user>",
				su.name, p, fi.Mode().Perm(), dir)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func (su *serverUser) canSearch(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	perm := fi.Mode().Perm()
	switch {
	case int(st.Uid) == su.uid:
		return perm&0o100 != 0
	case su.inGroup(st.Gid):
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}

func (su *serverUser) inGroup(gid uint32) bool {
	if int(gid) == su.gid {
		return true
	}
	for _, g := range su.groups {
		if g == gid {
			return true
		}
	}
	return false
}

// chown gives path (recursively) to the server user. Only the cluster's own
// entries are walked, never Dir's other contents, so a misconfigured Dir
// like $HOME cannot have its files handed away.
func (su *serverUser) chown(path string, recursive bool) error {
	if !su.switchUser {
		return nil
	}
	fix := func(p string, fi fs.FileInfo) error {
		st, ok := fi.Sys().(*syscall.Stat_t)
		if ok && int(st.Uid) == su.uid && int(st.Gid) == su.gid {
			return nil
		}
		if err := os.Lchown(p, su.uid, su.gid); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if !recursive {
		fi, err := os.Lstat(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		return fix(path, fi)
	}
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		fi, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		return fix(p, fi)
	})
	if err != nil {
		return fmt.Errorf("chown %s to %s: %w", path, su.name, err)
	}
	return nil
}
