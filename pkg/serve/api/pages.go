package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// maxPages bounds how many encoded pages a replica keeps: a page is a few to a few hundred
// kilobytes, and every write makes all of them stale anyway.
const maxPages = 512

// pages keeps lists' pages as they were encoded, each with the count of changes
// (store.Store.Changes) it was read at. While the count stays, nothing in the table changed,
// on this replica or another, and the page is served again as it is: reading 100 objects and
// encoding their specs was most of what a list cost, and a portal asks for the same pages over
// and over.
type pages struct {
	mu    sync.Mutex
	saved map[string]savedPage
}

type savedPage struct {
	changes int64
	body    []byte
}

// pageKey names a list's page by everything that selects it.
func pageKey(f store.Filter) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%d\x00%d", f.Kind, f.ClusterID, f.Phase, f.Health, f.Limit, f.Offset)
}

// get returns the page saved under key when it was read at changes.
func (p *pages) get(key string, changes int64) ([]byte, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	saved, ok := p.saved[key]
	return saved.body, ok && saved.changes == changes
}

// put saves a page read at changes, unless a newer one is saved already. A full cache is
// emptied rather than sorted: after a write every page in it is stale.
func (p *pages) put(key string, changes int64, body []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.saved == nil || len(p.saved) >= maxPages {
		p.saved = map[string]savedPage{}
	}
	if saved, ok := p.saved[key]; ok && saved.changes > changes {
		return
	}
	p.saved[key] = savedPage{changes: changes, body: body}
}

// encodePage is a list's answer as writeList sends it.
func encodePage(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
