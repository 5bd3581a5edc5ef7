package light

import (
	"io"
	"os"
)

// stderr is where deployed functions log: Cloud Run collects it.
var stderr io.Writer = os.Stderr
