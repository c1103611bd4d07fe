package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// maxPages bounds how many encoded pages a replica keeps: a page is a few to a few hundred
// kilobytes, and every write makes all of them stale anyway. maxObjects bounds the objects
// read by id it keeps, a kilobyte or two each.
const (
	maxPages   = 512
	maxObjects = 4096
)

// answers keeps answers as they were encoded, lists' pages and objects read by id, each with
// the count of changes (store.Objects.Changes) it was read at. While the count stays, nothing in
// the table changed, on this replica or another, and the answer is served again as it is:
// reading 100 objects and encoding their specs was most of what a list cost, reading and
// encoding one most of what a read by id cost, and a portal asks for the same over and over.
type answers struct {
	// max bounds how many are kept (Server.Handler sets it).
	max   int
	mu    sync.Mutex
	saved map[string]savedAnswer
}

type savedAnswer struct {
	changes int64
	body    []byte
	// etag is an object's ETag header ("" for a list).
	etag string
}

// pageKey names a list's page by everything that selects it.
func pageKey(f store.Filter) string {
	after := ""
	if f.After != nil {
		after = encodeCursor(*f.After)
	}
	return fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%d\x00%d\x00%s", f.Type, f.ClusterID, f.Phase, f.Health, f.Limit, f.Offset, after)
}

// get returns the answer saved under key when it was read at changes.
func (p *answers) get(key string, changes int64) (savedAnswer, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	saved, ok := p.saved[key]
	return saved, ok && saved.changes == changes
}

// put saves an answer read at saved.changes, unless a newer one is saved already. A full
// cache is emptied rather than sorted: after a write every answer in it is stale.
//
// An object read after the count was read is saved under that count: it is at least as new as
// what the table held at the count, so a read that finds the same count later, with no write
// between, may have it.
func (p *answers) put(key string, saved savedAnswer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.saved == nil || len(p.saved) >= p.max {
		p.saved = map[string]savedAnswer{}
	}
	if old, ok := p.saved[key]; ok && old.changes > saved.changes {
		return
	}
	p.saved[key] = saved
}

// encodeAnswer is an answer as writeEncoded sends it.
func encodeAnswer(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
