package sandbox

import (
	"context"
	"encoding/json"
	"github.com/clusterplane/clusterplane/pkg/atomicwrite"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/childproc"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/ownedfs"
	"github.com/pkg/errors"
)

// Server is a sandbox running in the background (sandbox.json): its process and its clouds' API
// URLs by cloud, written as "<cloud>ApiUrl" (server.go).
type Server struct {
	PID  int
	URLs map[cloud.ID]string
}

// Running is the sandbox of dir running in the background, nil when none is: sandbox.json names
// a live process whose clouds answer. Whatever may have written sandbox.json (a stale file, a
// cloned repository, another user) is checked before it is used: the folder and the file must be
// this user's alone, its URLs loopback ones, and its process the `clusterplane sandbox serve` of
// dir; a file failing a check is refused with an error naming it and the field.
func Running(dir string) (*Server, error) {
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err := ownedfs.Check(dir); err != nil {
		return nil, errors.Wrap(err, "the sandbox's folder")
	}
	path := filepath.Join(dir, serverFile)
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err := ownedfs.CheckFile(path); err != nil {
		return nil, errors.Wrap(err, "the running sandbox's address")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errors.Wrap(err, "read the running sandbox's address")
	}
	var s Server
	if err := json.Unmarshal(data, &s); err != nil {
		// Torn or not ours to read: no sandbox runs by it, and Start writes it anew.
		return nil, nil
	}
	if err := s.check(path); err != nil {
		return nil, err
	}
	if !alive(s.PID) {
		return nil, nil
	}
	if err := sandboxProcess(s.PID, dir); err != nil {
		return nil, errors.Errorf("%s: field \"pid\" names process %d, which is not this sandbox's `clusterplane sandbox serve` "+
			"(%v): it is neither used nor signalled; if no sandbox runs there, remove the file and run again", path, s.PID, err)
	}
	for _, url := range s.URLs {
		if !answers(url) {
			return nil, nil
		}
	}
	return &s, nil
}

// answers tells whether something listens at url's host and port: a background sandbox's cloud,
// or nothing since it stopped. A connection is enough; no request is sent, so that clients of
// the clouds are built only under pkg/cloud.
func answers(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return false
	}
	conn, err := net.DialTimeout("tcp", u.Host, 2*time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// Session is a prepared sandbox: its folder, its engine and, when it serves them itself, its
// clouds.
type Session struct {
	Dir    string
	Engine Engine
	// URLs are the clouds' API URLs by cloud.
	URLs map[cloud.ID]string
	// clouds are the clouds this process serves; nil when a background sandbox serves them.
	clouds *Clouds
}

// Open prepares the sandbox of dir and reaches its clouds: a background sandbox's when one runs,
// else its own, served until Close. It refuses an environment with a real credential.
func Open(dir string, engine Engine) (*Session, error) {
	if err := CheckEnvironment(os.Environ()); err != nil {
		return nil, err
	}
	if err := prepare(dir, engine); err != nil {
		return nil, err
	}
	s := &Session{Dir: dir, Engine: engine}
	server, err := Running(dir)
	if err != nil {
		return nil, err
	}
	if server != nil {
		s.URLs = server.URLs
		return s, nil
	}
	if s.clouds, err = StartClouds(dir); err != nil {
		return nil, err
	}
	s.URLs = s.clouds.URLs()
	return s, nil
}

// Environ is the process's environment with the sandbox's in place.
func (s *Session) Environ() []string {
	return Environ(os.Environ(), s.Dir, s.Engine, s.URLs)
}

// Close saves and stops the clouds the session serves itself.
func (s *Session) Close() error {
	if s.clouds == nil {
		return nil
	}
	return s.clouds.Close()
}

// Run runs argv inside the sandbox with the given standard streams and returns its exit code.
// An interrupt goes to the command (it shares the terminal) and the sandbox waits for it, so
// that the clouds are saved after whatever the command did.
func (s *Session) Run(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if len(argv) == 0 {
		return 0, errors.New("no command to run in the sandbox")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	env := s.Environ()
	// Look the command up on the sandbox's PATH, where the engine and this clusterplane are.
	for _, kv := range env {
		if len(kv) > 5 && kv[:5] == "PATH=" {
			if path, err := lookPath(argv[0], kv[5:]); err == nil {
				cmd.Path = path
				cmd.Err = nil
			}
		}
	}
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	// Ctrl-C reaches the command from the terminal itself, so the sandbox only outlives it. A
	// SIGTERM is sent to the sandbox alone (a service manager, kill): it is passed on, or the
	// command (a clusterplane serve) would run on with its clouds gone.
	code, err := childproc.Run(cmd)
	if errors.Is(err, exec.ErrNotFound) {
		// `sandbox -- status FILE` is a clusterplane command written without its name.
		return 0, errors.Errorf("run %s in the sandbox: no command %s on its PATH (a clusterplane command is run as "+
			"`sandbox -- clusterplane %s`)", argv[0], argv[0], strings.Join(argv, " "))
	}
	if err != nil {
		return 0, errors.Wrapf(err, "run %s in the sandbox", argv[0])
	}
	return code, nil
}

// lookPath finds name on path, as the shell would.
func lookPath(name, path string) (string, error) {
	if filepath.Base(name) != name {
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		candidate := filepath.Join(dir, name)
		if info, err := os.Stat(candidate); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return candidate, nil
		}
	}
	return "", errors.Errorf("%s not found", name)
}

// Serve runs the sandbox's clouds in this process until ctx ends, announcing them in
// sandbox.json for Start, Open and Stop; it saves them and removes sandbox.json on the way out.
func Serve(ctx context.Context, dir string, engine Engine) error {
	s, err := Open(dir, engine)
	if err != nil {
		return err
	}
	if s.clouds == nil {
		return errors.Errorf("the sandbox in %s runs already", dir)
	}
	path := filepath.Join(dir, serverFile)
	data, _ := json.Marshal(Server{PID: os.Getpid(), URLs: s.URLs})
	// A new file of this process's, never one found there (a link to elsewhere would be followed).
	_ = os.Remove(path)
	if err := atomicwrite.NewPrivate(path, data); err != nil {
		_ = s.Close()
		return errors.Wrap(err, "announce the sandbox")
	}
	<-ctx.Done()
	_ = os.Remove(path)
	return s.Close()
}

// Start starts the sandbox of dir in the background (`exe sandbox serve --dir dir`), unless it
// runs already, and returns it once its clouds answer.
func Start(dir string, engine Engine, exe string) (*Server, error) {
	if err := CheckEnvironment(os.Environ()); err != nil {
		return nil, err
	}
	if err := prepare(dir, engine); err != nil {
		return nil, err
	}
	if s, err := Running(dir); err != nil || s != nil {
		return s, err
	}
	_ = os.Remove(filepath.Join(dir, serverFile))
	// The log is appended to: a link planted in its place would have the sandbox write elsewhere.
	logPath := filepath.Join(dir, logFile)
	if _, err := os.Lstat(logPath); err == nil {
		if err := ownedfs.CheckFile(logPath); err != nil {
			return nil, errors.Wrap(err, "the sandbox's log")
		}
	}
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, errors.Wrap(err, "open the sandbox's log")
	}
	defer log.Close()
	cmd := exec.Command(exe, "sandbox", "serve", "--dir", dir, "--engine", filepath.Dir(engine.Bin))
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Dir = dir
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return nil, errors.Wrap(err, "start the sandbox in the background")
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	deadline := time.After(30 * time.Second)
	for {
		if s, err := Running(dir); err != nil || s != nil {
			return s, err
		}
		select {
		case <-exited:
			return nil, errors.Errorf("the sandbox stopped as it started: see %s", filepath.Join(dir, logFile))
		case <-deadline:
			_ = cmd.Process.Kill()
			return nil, errors.Errorf("the sandbox did not start within 30s: see %s", filepath.Join(dir, logFile))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop stops the sandbox of dir running in the background and waits until it has saved its
// clouds and exited. It tells whether one was running.
func Stop(dir string) (bool, error) {
	s, err := Running(dir)
	if err != nil {
		// Left as it is: the error says what is wrong with it and what to do.
		return false, err
	}
	if s == nil {
		// A stale file's process has ended: nothing of it is left to stop.
		_ = os.Remove(filepath.Join(dir, serverFile))
		return false, nil
	}
	if err := terminate(s.PID); err != nil {
		return false, errors.Wrap(err, "stop the sandbox")
	}
	for range 300 {
		if !alive(s.PID) {
			return true, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return true, errors.Errorf("the sandbox (process %d) did not stop within 30s", s.PID)
}
