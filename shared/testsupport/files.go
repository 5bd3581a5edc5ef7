package testsupport

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
)

// SamplePNG is a small real PNG image.
func SamplePNG() []byte {
	var b bytes.Buffer
	png.Encode(&b, sampleImage())
	return b.Bytes()
}

// SampleJPEG is a small real JPEG image.
func SampleJPEG() []byte {
	var b bytes.Buffer
	jpeg.Encode(&b, sampleImage(), nil)
	return b.Bytes()
}

func sampleImage() image.Image {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for x := range 16 {
		for y := range 16 {
			img.Set(x, y, color.RGBA{uint8(x * 16), uint8(y * 16), 128, 255})
		}
	}
	return img
}

// SamplePDF is a one-page PDF of padding bytes of filler (in a comment),
// so a test can make one of any size from about 400 bytes up.
func SamplePDF(padding int) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := []int{}
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>")
	for padding > 0 {
		line := min(padding, 78)
		b.WriteString("%" + string(bytes.Repeat([]byte("x"), max(line-2, 0))) + "\n")
		padding -= line
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}
