// Package sitepage serves the site's introduction form: a static page, its
// ES modules (the form and the Web Worker proof-of-work solver) and its
// style sheet, embedded from assets/. Any static site can copy assets/ as
// it is; this package serves the same files on the dev server at /.
package sitepage

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed assets
var embedded embed.FS

// CSP is the page's Content-Security-Policy.
const CSP = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// Assets returns the page's files, the tree a static site copies.
func Assets() fs.FS {
	sub, err := fs.Sub(embedded, "assets")
	if err != nil {
		panic(err) // the embedded tree always has assets/
	}
	return sub
}

type asset struct {
	body                     []byte
	contentType, cache, etag string
}

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
}

// Handler serves GET and HEAD of /, /favicon.svg, /js/<file> and /css/<file> with their
// headers and the page CSP; another path is 404, another method 405.
func Handler() http.Handler {
	files := map[string]asset{}
	root := Assets()
	err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ct, ok := contentTypes[path.Ext(p)]
		if !ok {
			return nil
		}
		route := "/" + p
		switch {
		case p == "index.html":
			route = "/"
		case p == "favicon.svg":
		case (strings.HasPrefix(p, "js/") || strings.HasPrefix(p, "css/")) && strings.Count(p, "/") == 1:
		default:
			return nil
		}
		body, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		cache := "public, max-age=300"
		if route == "/" {
			cache = "no-cache"
		}
		files[route] = asset{body: body, contentType: ct, cache: cache, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
		return nil
	})
	if err != nil {
		panic(err) // reading the embedded tree cannot fail
	}

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		a, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h.Set("Content-Type", a.contentType)
		h.Set("Cache-Control", a.cache)
		h.Set("ETag", a.etag)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
	})
}
