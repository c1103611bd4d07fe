package digitalocean_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
)

func TestSizesAreReadPageByPageAndARefusedTokenIsSaidSo(t *testing.T) {
	tests := []struct {
		name      string
		pages     int
		status    int
		wantSizes int
		wantErr   error
	}{
		{"one page", 1, http.StatusOK, 2, nil},
		{"three pages", 3, http.StatusOK, 6, nil},
		{"a refused token", 1, http.StatusUnauthorized, 0, digitalocean.ErrTokenRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := serve(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				if tt.status != http.StatusOK {
					w.WriteHeader(tt.status)
					fmt.Fprint(w, `{"id":"unauthorized","message":"Unable to authenticate you"}`)
					return
				}
				p, _ := strconv.Atoi(r.URL.Query().Get("page"))
				if p == 0 {
					p = 1
				}
				links := `{}`
				if p < tt.pages {
					links = fmt.Sprintf(`{"pages":{"last":"%s/v2/sizes?page=%d","next":"%s/v2/sizes?page=%d"}}`, "http://"+r.Host, tt.pages, "http://"+r.Host, p+1)
				}
				fmt.Fprintf(w, `{"sizes":[{"slug":"s-%d-a","price_monthly":12},{"slug":"s-%d-b","price_monthly":0}],"links":%s,"meta":{"total":%d}}`,
					p, p, links, 2*tt.pages)
			})
			client, err := digitalocean.Godo(token, a.URL, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			sizes, err := digitalocean.Sizes(context.Background(), client)
			if !errors.Is(err, tt.wantErr) || len(sizes) != tt.wantSizes {
				t.Fatalf("got %d sizes, %v; want %d, %v (%d requests)", len(sizes), err, tt.wantSizes, tt.wantErr, len(a.requests()))
			}
		})
	}
}
