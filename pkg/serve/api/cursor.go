package api

import (
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/google/uuid"
)

// A list's cursor is the place of a page's last object in the list's order (its creation time
// and id), which the next page starts after. It is opaque to clients: they send back what
// next_cursor said, and the server may change what it holds. Unlike an offset, it stays right
// while objects are created or deleted before it, and the database goes to it in the index
// rather than reading and dropping every row before it.

// cursorVersion starts every cursor, so that one of another shape is refused, not misread.
const cursorVersion = "1"

// encodeCursor writes place as a cursor.
func encodeCursor(p store.Place) string {
	raw := cursorVersion + "|" + p.CreatedAt.UTC().Format(time.RFC3339Nano) + "|" + p.ID
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// errCursor is what a client is told of a cursor that is not one next_cursor gave.
var errCursor = errors.New("is not a cursor this API gave: send next_cursor from the previous page as it is, or no cursor for the first page")

// decodeCursor reads a cursor encodeCursor wrote.
func decodeCursor(c string) (store.Place, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return store.Place{}, errCursor
	}
	parts := strings.Split(string(raw), "|")
	if len(parts) != 3 || parts[0] != cursorVersion {
		return store.Place{}, errCursor
	}
	at, err := time.Parse(time.RFC3339Nano, parts[1])
	if err != nil {
		return store.Place{}, errCursor
	}
	id, err := uuid.Parse(parts[2])
	if err != nil {
		return store.Place{}, errCursor
	}
	return store.Place{CreatedAt: at, ID: id.String()}, nil
}
