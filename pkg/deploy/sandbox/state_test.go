//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakeclouds"
)

// nobody is the uid the tests give a file "another user" wrote; only root may.
const nobody = 65534

// process is a child of the test's, reaped as soon as it ends, so that a signal it gets shows.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// start starts argv in cwd; with standIn, argv[1:] are the arguments of the test binary standing
// in for `clusterplane sandbox serve`.
func start(t *testing.T, cwd string, standIn bool, argv ...string) *process {
	t.Helper()
	var cmd *exec.Cmd
	if standIn {
		cmd = exec.Command(os.Args[0], argv...)
		cmd.Env = []string{standInEnv + "=1"}
	} else {
		cmd = exec.Command(argv[0], argv[1:]...)
	}
	cmd.Dir = cwd
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// running tells whether the process still runs, a moment after whatever was done to it.
func (p *process) running() bool {
	select {
	case <-p.exited:
		return false
	case <-time.After(300 * time.Millisecond):
		return true
	}
}

// answering is a URL on 127.0.0.1 that answers, as the sandbox's clouds do.
func answering(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) }))
	t.Cleanup(s.Close)
	return s.URL
}

// newSandbox is a prepared sandbox folder, sb, in a folder of the test's own.
func newSandbox(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sb")
	if err := prepare(dir, Engine{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// announce writes dir's sandbox.json as the sandbox would, with s's fields.
func announce(t *testing.T, dir string, s any) string {
	t.Helper()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, serverFile)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Promise: sandbox-state-file-checked
func TestStopSignalsOnlyTheSandboxsOwnServeProcess(t *testing.T) {
	tests := []struct {
		name string
		// run starts the process sandbox.json names, for the sandbox in dir.
		run func(t *testing.T, dir string) *process
		// stopped is true when Stop must stop it; false when it must refuse and leave it running.
		stopped bool
	}{
		{name: "the serve process Start starts is stopped", stopped: true,
			run: func(t *testing.T, dir string) *process {
				return start(t, "/", true, "sandbox", "serve", "--dir", dir, "--engine", "/nowhere")
			}},
		{name: "a serve process given the folder relative to its working folder is stopped", stopped: true,
			run: func(t *testing.T, dir string) *process {
				return start(t, filepath.Dir(dir), true, "sandbox", "--dir="+filepath.Base(dir), "serve")
			}},
		{name: "a serve process in the folder's parent without --dir is stopped when the folder is the default", stopped: true,
			run: func(t *testing.T, dir string) *process {
				return start(t, filepath.Dir(dir), true, "sandbox", "serve")
			}},
		{name: "an unrelated process of the user's is not signalled", stopped: false,
			run: func(t *testing.T, dir string) *process { return start(t, "/", false, "sleep", "60") }},
		{name: "the serve process of another sandbox is not signalled", stopped: false,
			run: func(t *testing.T, dir string) *process {
				return start(t, "/", true, "sandbox", "serve", "--dir", t.TempDir())
			}},
		{name: "a process merely named with sandbox serve in its arguments is not signalled", stopped: false,
			run: func(t *testing.T, dir string) *process {
				return start(t, "/", true, "--dir", dir, "sandbox", "serve")
			}},
		{name: "another command of the sandbox is not signalled", stopped: false,
			run: func(t *testing.T, dir string) *process {
				return start(t, "/", true, "sandbox", "--dir", dir, "--", "serve")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Named as the default folder, for the serve process that is given none.
			dir := filepath.Join(t.TempDir(), DefaultDir)
			if err := prepare(dir, Engine{}); err != nil {
				t.Fatal(err)
			}
			p := tt.run(t, dir)
			path := announce(t, dir, Server{PID: p.cmd.Process.Pid, URLs: everyCloudAnswering(t)})
			stopped, err := Stop(dir)
			if tt.stopped {
				if err != nil || !stopped {
					t.Fatalf("Stop = %v, %v, want the sandbox stopped", stopped, err)
				}
				if p.running() {
					t.Errorf("the sandbox's process %d still runs after Stop", p.cmd.Process.Pid)
				}
				return
			}
			if err == nil || stopped {
				t.Fatalf("Stop = %v, %v, want a refusal", stopped, err)
			}
			for _, want := range []string{path, `"pid"`, fmt.Sprint(p.cmd.Process.Pid)} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the refusal %q does not say %s", err, want)
				}
			}
			if !p.running() {
				t.Errorf("Stop signalled process %d, which is not the sandbox's", p.cmd.Process.Pid)
			}
		})
	}
}

// Promise: sandbox-state-file-checked
func TestASandboxStateFileIsUsedOnlyWhenItsFieldsAreTheSandboxsOwn(t *testing.T) {
	tests := []struct {
		name string
		// state is sandbox.json's fields; serve is replaced by the stand-in's pid, up by a URL that
		// answers, and nil leaves the field out. A driver's URL field the case does not name is a
		// URL that answers, so that a cloud added to the drivers needs no line here.
		state map[string]any
		// field is the field the refusal names; "" when the state file is used.
		field string
		// says is what else the refusal says.
		says string
	}{
		{name: "loopback URLs of the running sandbox are used",
			state: map[string]any{"pid": "serve", "digitaloceanApiUrl": "up", "civoApiUrl": "up"}},
		{name: "a DigitalOcean URL off the machine is refused",
			state: map[string]any{"pid": "serve", "digitaloceanApiUrl": "https://api.digitalocean.com", "civoApiUrl": "up"},
			field: "digitaloceanApiUrl", says: "not on a loopback address"},
		{name: "a Civo URL on a private network's address is refused",
			state: map[string]any{"pid": "serve", "digitaloceanApiUrl": "up", "civoApiUrl": "http://10.0.0.1:8080"},
			field: "civoApiUrl", says: "not on a loopback address"},
		{name: "a cloud's URL left out is refused at its field",
			state: map[string]any{"pid": "serve", "digitaloceanApiUrl": "up", "civoApiUrl": nil},
			field: "civoApiUrl", says: "not an http or https URL"},
		{name: "a field of no cloud a driver knows is not read",
			state: map[string]any{"pid": "serve", "digitaloceanApiUrl": "up", "civoApiUrl": "up", "moonApiUrl": "https://moon.example"}},
		{name: "process id 0, which signals the whole group, is refused",
			state: map[string]any{"pid": 0, "digitaloceanApiUrl": "up", "civoApiUrl": "up"}, field: "pid", says: "not a process's id"},
		{name: "process id -1, which signals every process, is refused",
			state: map[string]any{"pid": -1, "digitaloceanApiUrl": "up", "civoApiUrl": "up"}, field: "pid", says: "not a process's id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newSandbox(t)
			serve := start(t, "/", true, "sandbox", "serve", "--dir", dir)
			state := map[string]any{}
			for _, id := range clouds.IDs() {
				if _, named := tt.state[urlField(id)]; !named {
					state[urlField(id)] = answering(t)
				}
			}
			for k, v := range tt.state {
				switch v {
				case nil:
					continue
				case "serve":
					v = serve.cmd.Process.Pid
				case "up":
					v = answering(t)
				}
				state[k] = v
			}
			path := announce(t, dir, state)
			s, err := Running(dir)
			if tt.field == "" {
				if err != nil || s == nil {
					t.Fatalf("Running = %v, %v, want the running sandbox", s, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `"`+tt.field+`"`) ||
				!strings.Contains(err.Error(), tt.says) {
				t.Fatalf("Running = %v, %v, want a refusal naming %s and its field %q, saying %q", s, err, path, tt.field, tt.says)
			}
			if !serve.running() {
				t.Errorf("the sandbox's process was signalled")
			}
		})
	}
}

func TestOnlyLoopbackURLsAreTheSandboxsClouds(t *testing.T) {
	tests := []struct {
		url string
		ok  bool
	}{
		{"http://127.0.0.1:41234", true},
		{"http://127.9.8.7:80/v2", true},
		{"https://127.0.0.1", true},
		{"http://[::1]:8080", true},
		{"http://localhost:8080", true},
		{"http://[::ffff:127.0.0.1]:80", true},
		{"http://10.0.0.1:8080", false},
		{"https://api.digitalocean.com", false},
		{"http://127.0.0.1.nip.io", false},
		{"http://localhost.example.com", false},
		{"http://0.0.0.0:80", false},
		{"http://2130706433:80", false},
		{"http://[fe80::1%25lo]:80", false},
		{"http://user:secret@127.0.0.1:80", false},
		{"ftp://127.0.0.1", false},
		{"file:///etc/passwd", false},
		{"127.0.0.1:80", false},
		{"", false},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%q is refused", tt.url)
		if tt.ok {
			name = fmt.Sprintf("%q is a loopback URL", tt.url)
		}
		t.Run(name, func(t *testing.T) {
			err := loopbackURL(tt.url)
			if (err == nil) != tt.ok {
				t.Fatalf("loopbackURL(%q) = %v, want ok %v", tt.url, err, tt.ok)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("the refusal shows the URL's password: %v", err)
			}
		})
	}
}

// Promise: sandbox-folder-users-own
func TestASandboxsFolderAndStateFileMustBeTheUsersAlone(t *testing.T) {
	tests := []struct {
		name string
		// spoil does to the sandbox in dir, whose sandbox.json names its running serve, what
		// another user or a cloned repository could have done.
		spoil   func(t *testing.T, dir, state string)
		refused string
	}{
		{name: "a state file another user wrote is refused", refused: "another user",
			spoil: func(t *testing.T, dir, state string) { asNobody(t, state) }},
		{name: "a state file anyone may write is refused", refused: "written by its group or others",
			spoil: func(t *testing.T, dir, state string) { chmod(t, state, 0o666) }},
		{name: "a link in place of the state file is refused", refused: "symbolic link",
			spoil: func(t *testing.T, dir, state string) {
				elsewhere := filepath.Join(t.TempDir(), "sandbox.json")
				if err := os.Rename(state, elsewhere); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(elsewhere, state); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a sandbox folder anyone may write is refused", refused: "written by its group or others",
			spoil: func(t *testing.T, dir, state string) { chmod(t, dir, 0o777) }},
		{name: "a sandbox folder another user made is refused", refused: "another user",
			spoil: func(t *testing.T, dir, state string) { asNobody(t, dir) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newSandbox(t)
			serve := start(t, "/", true, "sandbox", "serve", "--dir", dir)
			state := announce(t, dir, Server{PID: serve.cmd.Process.Pid, URLs: everyCloudAnswering(t)})
			tt.spoil(t, dir, state)
			s, err := Running(dir)
			if err == nil || !strings.Contains(err.Error(), tt.refused) {
				t.Fatalf("Running = %v, %v, want a refusal saying %q", s, err, tt.refused)
			}
			if _, err := Stop(dir); err == nil {
				t.Errorf("Stop went ahead")
			}
			if !serve.running() {
				t.Errorf("the process was signalled")
			}
		})
	}
}

// Promise: sandbox-folder-users-own
func TestASandboxFolderThatIsALinkOrAnotherUsersIsNotFilled(t *testing.T) {
	tests := []struct {
		name    string
		make    func(t *testing.T, dir string)
		refused string
	}{
		{name: "a link to an empty folder of the user's is refused", refused: "symbolic link",
			make: func(t *testing.T, dir string) {
				if err := os.Symlink(t.TempDir(), dir); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "an empty folder another user made is refused", refused: "another user",
			make: func(t *testing.T, dir string) {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				asNobody(t, dir)
			}},
		{name: "a plugins folder anyone may write is refused", refused: "written by its group or others",
			make: func(t *testing.T, dir string) {
				if err := prepare(dir, Engine{}); err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Join(dir, "home", "plugins"), 0o700); err != nil {
					t.Fatal(err)
				}
				chmod(t, filepath.Join(dir, "home", "plugins"), 0o777)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sb")
			tt.make(t, dir)
			err := prepare(dir, Engine{Plugins: []Plugin{{Name: "civo", Version: "2.4.8", Binary: "/bin/true"}}})
			if err == nil || !strings.Contains(err.Error(), tt.refused) {
				t.Fatalf("prepare = %v, want a refusal saying %q", err, tt.refused)
			}
		})
	}
}

func asNobody(t *testing.T, path string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("handing a file to another user needs root")
	}
	if err := os.Lchown(path, nobody, nobody); err != nil {
		t.Fatal(err)
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// everyCloudAnswering is a URL answering on loopback for every driver's cloud, as a running
// sandbox announces them, so that a cloud added to the drivers needs no line here.
func everyCloudAnswering(t *testing.T) map[cloud.ID]string {
	t.Helper()
	urls := map[cloud.ID]string{}
	for _, id := range clouds.IDs() {
		urls[id] = answering(t)
	}
	return urls
}

func TestADriverWithoutALoopbackIsRefusedByItsNameNotBySandboxJSON(t *testing.T) {
	tests := []struct {
		name string
		ids  []cloud.ID
		want []string
	}{
		{name: "a driver with no loopback line is named with where its line goes",
			ids:  append(clouds.IDs(), "nosuchcloud"),
			want: []string{"nosuchcloud driver has no loopback", "pkg/loopback/fakeclouds"}},
		{name: "the drivers that all have loopbacks are let through", ids: clouds.IDs()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Server{PID: os.Getpid(), URLs: everyCloudAnswering(t)}
			err := s.checkFor("sandbox.json", tt.ids, fakeclouds.Get)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("check = %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatal("check let a driver without a loopback through")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the refusal %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "remove the file") {
				t.Errorf("the refusal %q blames sandbox.json", err)
			}
		})
	}
}
