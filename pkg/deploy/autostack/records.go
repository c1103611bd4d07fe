package autostack

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"

	"github.com/clusterplane/clusterplane/pkg/deploy/autostack/statefile"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// A self-managed backend keeps each stack in blobs the Pulumi CLI lays out the same way on every
// store (pkg/backend/diy in pulumi/pulumi v3.259.0: stackPath, HistoryDir, addToHistory): the
// state at .pulumi/stacks/<project>/<stack>.json, and per finished operation a history record
// .pulumi/history/<project>/<stack>/<stack>-<unix nanoseconds>.history.json. Each is in one of
// the forms of recordForms. Reading them directly is what `pulumi stack export` and `pulumi stack
// history` read, without starting either.

// recordForms are the endings the Pulumi CLI gives a record after ".json": none, ".gz" with
// PULUMI_DIY_BACKEND_GZIP, ".zst" with PULUMI_DIY_BACKEND_ZSTD (diy/state.go saveCheckpoint and
// addToHistory, sdk go/common/encoding Compression.Ext, v3.259.0). A record with another ending
// is in a form this does not read: the stack is read through the CLI (ErrRecordsUnread), never
// taken for one that does not exist.
var recordForms = []string{"", ".gz", ".zst"}

// backupEnding is what the CLI appends to the copy it keeps of a checkpoint before it writes the
// next (diy/state.go backupTarget): a backup, no form of the stack's state.
const backupEnding = ".bak"

// metaFile records the layout's version: 1 is the project-scoped layout above.
const metaFile = ".pulumi/meta.yaml"

// projectScoped tells whether meta, the backend's metaFile, names the project-scoped layout.
func projectScoped(meta []byte) bool { return bytes.Contains(meta, []byte("version: 1")) }

// historyToRead is how many of the latest records are read to find the last update or destroy
// (refreshes and imports come between), as LastUpdate asks the CLI for.
const historyToRead = 10

// blobs reads a self-managed backend's store.
type blobs interface {
	// read is the blob at key; an error satisfying errors.Is(err, fs.ErrNotExist) when there is
	// none.
	read(ctx context.Context, key string) ([]byte, error)
	// list is the keys of the blobs directly under dir, in any order.
	list(ctx context.Context, dir string) ([]string, error)
	// named is the keys of the blobs directly under dir whose names start with prefix, in any
	// order: where findRecord looks for one stack's record among every stack's.
	named(ctx context.Context, dir, prefix string) ([]string, error)
	// remove removes the blob at key, the one write clusterplane makes to a backend's store
	// itself: a Pulumi lock a dead process left (stackOf.RemoveDeadLocks).
	remove(ctx context.Context, key string) error
}

// ReadsRecords is true: a file or PostgreSQL backend's records are read directly, and Records
// says of any other which it cannot read.
func (b *Backend) ReadsRecords() bool { return true }

// Records reads the stack's state and last update from the backend's storage (stackstate.Backend):
// a local file backend's files, a PostgreSQL backend's rows. Other backends, and a layout or encoding this does not read, say
// stackstate.ErrRecordsUnread, and the CLI reads them instead.
func (b *Backend) Records(ctx context.Context, project, stack string) (stackstate.Records, error) {
	store, err := b.blobs(ctx)
	if err != nil {
		return stackstate.Records{}, err
	}
	rec, data, err := readRecords(ctx, store, project, stack)
	if err == nil && rec.Deployment != nil && len(rec.State.Deployment) != 0 && string(rec.State.Deployment) != "null" {
		// As readState would parse it: a checkpoint with a deployment, read in one pass.
		st := stackstate.State{Raw: rec.State, Deployment: *rec.Deployment}
		rec.Keep = func() { b.parsed.Keep(project+"/"+stack, sumOf(data), st) }
	}
	if err != nil && !errors.Is(err, stackstate.ErrNotDeployed) && !errors.Is(err, stackstate.ErrRecordsUnread) {
		// What cannot be read here (a database out of reach, a wrong password) the CLI's way reads
		// or says, naming the backend with its password redacted, as every other command does.
		// The reason is said once: a database's error may quote the URL, so it is redacted.
		err = errors.Wrap(stackstate.ErrRecordsUnread, b.redactor().Error(err).Error())
	}
	return rec, err
}

// LastUpdate reads the stack's last update or destroy from the backend's history alone
// (stackstate.Backend), leaving its state unread.
func (b *Backend) LastUpdate(ctx context.Context, project, stack string) (*stackstate.Update, error) {
	store, err := b.blobs(ctx)
	if err != nil {
		return nil, err
	}
	meta, err := store.read(ctx, metaFile)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		if !projectScoped(meta) {
			return nil, errors.Wrap(stackstate.ErrRecordsUnread, "its layout is not the project-scoped one (.pulumi/meta.yaml version 1)")
		}
		var last *stackstate.Update
		last, _, err = lastUpdate(ctx, store, project, stack)
		if err == nil || errors.Is(err, stackstate.ErrRecordsUnread) {
			return last, err
		}
	}
	// As Records says it: the CLI's way reads what cannot be read here, and a database's error
	// may quote the URL.
	return nil, errors.Wrap(stackstate.ErrRecordsUnread, b.redactor().Error(err).Error())
}

// stateRead is a state read from a backend's storage: a digest of the stored bytes (sum, set when
// parsed is), and the state they hold.
type stateRead struct {
	mu     sync.Mutex
	parsed bool
	sum    uint64
	state  stackstate.State
}

// storedSeed seeds the digests of stored states (sumOf) for this process: a digest is compared
// only with another of the same process, and a seed no file can know keeps a crafted state from
// passing for another.
var storedSeed = maphash.MakeSeed()

// sumOf is the digest of a stack's stored state, which tells whether the bytes read now are
// those a kept parse was made from: a parse kept by the fleet scan (Records.Keep) comes with its
// digest alone.
func sumOf(data []byte) uint64 { return maphash.Bytes(storedSeed, data) }

// readState reads stack <project>/<stack>'s state from the backend's storage as `pulumi stack
// export` gives it: the checkpoint's latest deployment, as written, of version 3 (diy/backend.go
// ExportDeployment, v3.259.0), parsed. last is the read before on the same stack: while the
// stored bytes are the same, its state is returned unparsed again, and otherwise it becomes this
// read. ok is false wherever the CLI's answer might differ or only the CLI can say what went
// wrong: no store read here, another layout, a form or a checkpoint that statefile.OnePass does not
// read (features, another version, a file cut short), no deployment yet.
func (b *Backend) readState(ctx context.Context, project, stack string, last *stateRead) (st stackstate.State, ok bool) {
	if b == nil {
		return st, false
	}
	store, err := b.blobs(ctx)
	if err != nil {
		return st, false
	}
	if meta, err := store.read(ctx, metaFile); err != nil || !projectScoped(meta) {
		return st, false
	}
	data, err := readStackState(ctx, store, project, stack)
	if err != nil {
		return st, false
	}
	last.mu.Lock()
	defer last.mu.Unlock()
	sum := sumOf(data)
	if last.parsed && last.sum == sum {
		return last.state, true
	}
	c, ok := statefile.OnePass(data)
	if !ok || len(c.Latest) == 0 || string(c.Latest) == "null" {
		return st, false
	}
	st = stackstate.State{Raw: apitype.UntypedDeployment{Version: 3, Deployment: c.Latest}, Deployment: c.Deployment}
	last.parsed, last.sum, last.state = true, sum, st
	return st, true
}

// blobs is the backend's store when clusterplane reads it directly: a local folder, or a
// PostgreSQL table (connected once for the backend's life).
func (b *Backend) blobs(ctx context.Context) (blobs, error) {
	if isPostgres(b.url) {
		b.pgOnce.Do(func() { b.pg, b.pgErr = openTable(b.url) })
		if b.pgErr != nil {
			return nil, b.redactor().Error(b.pgErr)
		}
		return b.pg, nil
	}
	root, ok := strings.CutPrefix(b.url, "file://")
	if !ok || root == "" || strings.ContainsAny(root, "?~") {
		return nil, errors.Wrap(stackstate.ErrRecordsUnread, "it is neither a local file backend nor PostgreSQL")
	}
	return dirBlobs{root: root, folders: &b.folders}, nil
}

// readRecords reads a stack's records from a self-managed backend's store, and the stored bytes
// of its state.
func readRecords(ctx context.Context, store blobs, project, stack string) (stackstate.Records, []byte, error) {
	meta, err := store.read(ctx, metaFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return stackstate.Records{}, nil, err
	}
	if errors.Is(err, fs.ErrNotExist) {
		// A backend nothing was deployed to has no meta.yaml yet; one of the layout before
		// projects has none either, and keeps the stack at .pulumi/stacks/<stack>.json.
		if _, err := findRecord(ctx, store, path.Join(".pulumi", "stacks"), stack+".json"); errors.Is(err, fs.ErrNotExist) {
			return stackstate.Records{}, nil, stackstate.ErrNotDeployed
		}
	}
	if !projectScoped(meta) {
		return stackstate.Records{}, nil, errors.Wrap(stackstate.ErrRecordsUnread, "its layout is not the project-scoped one (.pulumi/meta.yaml version 1)")
	}
	data, err := readStackState(ctx, store, project, stack)
	if errors.Is(err, fs.ErrNotExist) {
		return stackstate.Records{}, nil, stackstate.ErrNotDeployed
	}
	if err != nil {
		return stackstate.Records{}, nil, err
	}
	var rec stackstate.Records
	if c, ok := statefile.OnePass(data); ok {
		rec = stackstate.Records{State: apitype.UntypedDeployment{Version: 3, Deployment: c.Latest}, Deployment: &c.Deployment}
	} else if rec, err = checkpointRecords(data, project, stack); err != nil {
		return stackstate.Records{}, nil, err
	}
	rec.Last, rec.Newest, err = lastUpdate(ctx, store, project, stack)
	if err != nil {
		return rec, nil, err
	}
	rec.WrittenSinceRecord, err = writtenSinceRecord(ctx, store, project, stack, data)
	return rec, data, err
}

// checkpointRecords reads the state of a checkpoint statefile.OnePass does not read, and says
// why it cannot be read directly.
func checkpointRecords(data []byte, project, stack string) (stackstate.Records, error) {
	latest, version, err := statefile.Latest(data)
	switch {
	case err != nil:
		// A checkpoint cut short (a full disk): the CLI's path says what restores it (torn.go).
		return stackstate.Records{}, errors.Wrapf(stackstate.ErrRecordsUnread, "the state of stack %s/%s does not parse (%v)", project, stack, err)
	case version != 3:
		return stackstate.Records{}, errors.Wrapf(stackstate.ErrRecordsUnread, "its state is of version %d", version)
	}
	return stackstate.Records{State: apitype.UntypedDeployment{Version: 3, Deployment: latest}}, nil
}

// lastUpdate is the stack's latest update or destroy in its history, nil when it has none, and
// the kind of its newest record of any kind ("" when it has none).
func lastUpdate(ctx context.Context, store blobs, project, stack string) (last *stackstate.Update, newest string, err error) {
	dir := path.Join(".pulumi", "history", project, stack)
	keys, err := store.list(ctx, dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, "", errors.Wrapf(err, "read the history of stack %s/%s", project, stack)
	}
	var records []string
	for _, k := range keys {
		if !strings.HasPrefix(k, stack+"-") || !strings.Contains(k, ".history.") {
			continue // a copy of the checkpoint, or no record of this stack's
		}
		if !knownForm(k, ".history.json") {
			// Of an unknown form, it may be the newest: the last update is the CLI's to say.
			return nil, "", errors.Wrapf(stackstate.ErrRecordsUnread, "the history record %s of stack %s/%s is in a form clusterplane does not read", k, project, stack)
		}
		records = append(records, k)
	}
	// The names differ only in their nanoseconds, of one length: the latest sorts last.
	sort.Sort(sort.Reverse(sort.StringSlice(records)))
	for _, k := range records[:min(len(records), historyToRead)] {
		data, err := readRecord(ctx, store, path.Join(dir, k))
		if err != nil {
			return nil, "", err
		}
		var info struct {
			Kind        string            `json:"kind"`
			Result      string            `json:"result"`
			Message     string            `json:"message"`
			EndTime     int64             `json:"endTime"`
			Version     int               `json:"version"`
			Environment map[string]string `json:"environment"`
		}
		if err := json.Unmarshal(data, &info); err != nil {
			return nil, "", errors.Wrapf(err, "read the history record %s", k)
		}
		if newest == "" {
			newest = info.Kind
		}
		if info.Kind != "update" && info.Kind != "destroy" {
			continue
		}
		r := rawUpdate{Kind: info.Kind, Result: info.Result, Message: info.Message, Version: info.Version, Environment: info.Environment}
		if info.EndTime != 0 {
			// As `pulumi stack history --json` writes it (RFC 5424, milliseconds).
			r.Ended = time.Unix(info.EndTime, 0).UTC().Format("2006-01-02T15:04:05.000Z07:00")
		}
		u := r.update()
		return &u, newest, nil
	}
	return nil, newest, nil
}

// readStackState is the stack's checkpoint, in whichever form the backend keeps it: an error
// satisfying errors.Is(err, fs.ErrNotExist) when it keeps none.
func readStackState(ctx context.Context, store blobs, project, stack string) ([]byte, error) {
	dir := path.Join(".pulumi", "stacks", project)
	name, err := findRecord(ctx, store, dir, stack+".json")
	if err != nil {
		return nil, err
	}
	return readRecord(ctx, store, path.Join(dir, name))
}

// findRecord is the name of the one blob in dir that holds the record base (a ".json" name), in
// any of the recordForms: an error satisfying errors.Is(err, fs.ErrNotExist) when there is none;
// stackstate.ErrRecordsUnread when the record is kept in a form this does not read, or in more than
// one form, where the CLI reads the one written last (diy/state.go stackPath), which a listing
// does not tell.
func findRecord(ctx context.Context, store blobs, dir, base string) (string, error) {
	names, err := store.named(ctx, dir, base)
	if err != nil {
		return "", err
	}
	return recordAmong(dir, base, names)
}

// recordAmong is findRecord over names, the blobs of dir (those starting with base at least).
func recordAmong(dir, base string, names []string) (string, error) {
	var found []string
	for _, name := range names {
		rest, ok := strings.CutPrefix(name, base)
		switch {
		case !ok || rest != "" && rest[0] != '.' || strings.HasSuffix(rest, backupEnding) || knownForm(rest, ".json"):
			// Another blob: a backup, or the record of a stack whose name goes on (s.json.x.json).
		case !knownForm(name, base):
			return "", errors.Wrapf(stackstate.ErrRecordsUnread, "%s is in a form clusterplane does not read", path.Join(dir, name))
		default:
			found = append(found, name)
		}
	}
	switch len(found) {
	case 0:
		return "", errors.Wrap(fs.ErrNotExist, path.Join(dir, base))
	case 1:
		return found[0], nil
	}
	sort.Strings(found)
	return "", errors.Wrapf(stackstate.ErrRecordsUnread, "%s is kept in more than one form (%s)", path.Join(dir, base), strings.Join(found, ", "))
}

// knownForm tells whether name is a record ending in base in one of the recordForms.
func knownForm(name, base string) bool {
	for _, form := range recordForms {
		if strings.HasSuffix(name, base+form) {
			return true
		}
	}
	return false
}

// The first bytes of a gzip stream and of a zstd frame, by which the CLI tells how a record is
// compressed whatever its name (sdk go/common/encoding/marshal.go DetectCompression, v3.259.0).
var (
	gzipMagic = []byte{0x1f, 0x8b, 0x08}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// zstdReader decodes zstd records; one serves every read (DecodeAll is safe for concurrent use).
var zstdReader = sync.OnceValues(func() (*zstd.Decoder, error) { return zstd.NewReader(nil) })

// readRecord reads the record at key and uncompresses it as the CLI does: by its first bytes.
func readRecord(ctx context.Context, store blobs, key string) ([]byte, error) {
	data, err := store.read(ctx, key)
	if err != nil {
		return nil, err
	}
	switch {
	case bytes.HasPrefix(data, gzipMagic):
		r, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, errors.Wrapf(err, "read %s", key)
		}
		defer r.Close()
		data, err = io.ReadAll(r)
		return data, errors.Wrapf(err, "read %s", key)
	case bytes.HasPrefix(data, zstdMagic):
		dec, err := zstdReader()
		if err != nil {
			return nil, errors.Wrapf(err, "read %s", key)
		}
		data, err = dec.DecodeAll(data, nil)
		return data, errors.Wrapf(err, "read %s", key)
	}
	return data, nil
}

// dirBlobs is a local file backend's store: a folder. The listings of the folders findRecord
// looks through are kept in folders, the Backend's.
type dirBlobs struct {
	root    string
	folders *folders
}

func (d dirBlobs) read(_ context.Context, key string) ([]byte, error) {
	return os.ReadFile(filepath.Join(d.root, filepath.FromSlash(key)))
}

func (d dirBlobs) remove(_ context.Context, key string) error {
	return os.Remove(filepath.Join(d.root, filepath.FromSlash(key)))
}

func (d dirBlobs) list(_ context.Context, dir string) ([]string, error) {
	return listFolder(filepath.Join(d.root, filepath.FromSlash(dir)))
}

// named looks prefix up in the folder's kept listing, a lookup independent of how many stacks
// the folder holds, where reading the folder (every stack's state) once a stack made a status of
// N stacks read N folders of N names. The names of prefix's own record forms (prefix, prefix.gz,
// prefix.zst) are looked at afresh, not in the listing: a stack this process deployed since the
// listing is found even on a file system whose times are coarser than racyWindow.
func (d dirBlobs) named(_ context.Context, dir, prefix string) ([]string, error) {
	folder := filepath.Join(d.root, filepath.FromSlash(dir))
	sorted, err := d.folders.names(folder)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := sort.SearchStrings(sorted, prefix); i < len(sorted) && strings.HasPrefix(sorted[i], prefix); i++ {
		if !slices.Contains(recordForms, sorted[i][len(prefix):]) {
			out = append(out, sorted[i])
		}
	}
	for _, form := range recordForms {
		info, err := os.Lstat(filepath.Join(folder, prefix+form))
		if err == nil && info.IsDir() || errors.Is(err, fs.ErrNotExist) {
			continue
		}
		// Another error is the read's to say, as it was when the listing named the blob.
		out = append(out, prefix+form)
	}
	return out, nil
}

// listFolder is the blobs of a local folder.
func listFolder(folder string) ([]string, error) {
	entries, err := os.ReadDir(folder)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		// The CLI's file store keeps each blob's metadata in a file of the blob's name and
		// ".attrs" beside it, which its listings leave out (gocloud.dev blob/fileblob, the
		// version pulumi/pulumi v3.259.0 pins): no blob.
		if !e.IsDir() && !strings.HasSuffix(e.Name(), attrsEnding) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// folders keeps a Backend's listings of the folders findRecord looks through, one a folder, each
// sorted and kept while the folder's modification time is the one seen when it was read.
type folders struct {
	mu     sync.Mutex
	byPath map[string]listing
}

type listing struct {
	modified time.Time
	names    []string
}

// racyWindow: a listing read within it of its folder's last change is not kept, since a change
// in the same instant of the file system's clock would leave the folder's time as it was.
const racyWindow = time.Second

// names is the folder's listing, sorted: the one kept when the folder has not changed since.
func (f *folders) names(folder string) ([]string, error) {
	info, err := os.Stat(folder)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	kept, ok := f.byPath[folder]
	f.mu.Unlock()
	if ok && kept.modified.Equal(info.ModTime()) {
		return kept.names, nil
	}
	read := time.Now()
	names, err := listFolder(folder)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	if read.Sub(info.ModTime()) >= racyWindow {
		f.mu.Lock()
		if f.byPath == nil {
			f.byPath = map[string]listing{}
		}
		f.byPath[folder] = listing{modified: info.ModTime(), names: names}
		f.mu.Unlock()
	}
	return names, nil
}

// attrsEnding ends the name of a file blob's metadata file (gocloud.dev blob/fileblob attrsExt).
const attrsEnding = ".attrs"
