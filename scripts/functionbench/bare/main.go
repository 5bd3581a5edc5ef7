// Command bare is the reference function: one trivial handler registered as
// "Bare" on the same Functions Framework, started the way buildpackmain
// starts the service's functions (FUNCTION_TARGET=Bare).
package main

import (
	"cmp"
	"log"
	"net/http"
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/funcframework"
	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
)

func init() {
	functions.HTTP("Bare", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true}`))
	})
}

func main() {
	if err := funcframework.StartHostPort("127.0.0.1", cmp.Or(os.Getenv("PORT"), "8080")); err != nil {
		log.Fatalf("funcframework.Start: %v", err)
	}
}
