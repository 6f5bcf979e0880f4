// Command prngdll writes a bcryptprimitives.dll for Wine prefixes that have
// none (Wine 8.0, Debian 12's): a PE32+ DLL with no code whose only export,
// ProcessPrng, forwards to advapi32.SystemFunction036 (RtlGenRandom).
//
// Go 1.24 and later load ProcessPrng from bcryptprimitives.dll at start and
// stop with "fatal error: bcryptprimitives.dll not found" without it. The
// two functions agree in what Go relies on: (buffer, length) in, and a
// non-zero low byte of the result on success. This DLL is for running test
// binaries under Wine only; a real Windows has the real one.
//
//	go run ./scripts/wine/prngdll "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
)

const (
	fileAlign    = 0x200
	sectionAlign = 0x1000
	exportRVA    = 0x1000 // the only section starts here
)

// image returns the bytes of a DLL named dllName whose one export name
// forwards to target ("dll.Function").
func image(dllName, name, target string) []byte {
	// The export section: directory, address table, name table, ordinal
	// table, then the strings.
	var sec bytes.Buffer
	le := binary.LittleEndian
	const dirSize = 40
	eat := uint32(exportRVA + dirSize)
	ent := eat + 4
	ords := ent + 4
	strs := ords + 2
	nameRVA := strs
	funcNameRVA := nameRVA + uint32(len(dllName)+1)
	forwardRVA := funcNameRVA + uint32(len(name)+1)
	end := forwardRVA + uint32(len(target)+1)

	w := func(v any) { _ = binary.Write(&sec, le, v) }
	w(uint32(0))   // Characteristics
	w(uint32(0))   // TimeDateStamp
	w(uint16(0))   // MajorVersion
	w(uint16(0))   // MinorVersion
	w(nameRVA)     // Name
	w(uint32(1))   // Base
	w(uint32(1))   // NumberOfFunctions
	w(uint32(1))   // NumberOfNames
	w(eat)         // AddressOfFunctions
	w(ent)         // AddressOfNames
	w(ords)        // AddressOfNameOrdinals
	w(forwardRVA)  // the function: inside the export directory, so a forwarder
	w(funcNameRVA) // its name
	w(uint16(0))   // its ordinal, less Base
	sec.WriteString(dllName + "\x00" + name + "\x00" + target + "\x00")
	exportSize := end - exportRVA
	raw := align(uint32(sec.Len()), fileAlign)
	sec.Write(make([]byte, raw-uint32(sec.Len())))

	var img bytes.Buffer
	w = func(v any) { _ = binary.Write(&img, le, v) }
	// DOS header: only e_magic and e_lfanew matter.
	dos := make([]byte, 64)
	copy(dos, "MZ")
	le.PutUint32(dos[60:], 64)
	img.Write(dos)
	img.WriteString("PE\x00\x00")
	// COFF file header.
	w(uint16(0x8664))                   // Machine: AMD64
	w(uint16(1))                        // NumberOfSections
	w(uint32(0))                        // TimeDateStamp
	w(uint32(0))                        // PointerToSymbolTable
	w(uint32(0))                        // NumberOfSymbols
	w(uint16(240))                      // SizeOfOptionalHeader
	w(uint16(0x0002 | 0x0020 | 0x2000)) // executable, large address aware, DLL
	// Optional header, PE32+.
	w(uint16(0x20b))                        // Magic
	w(uint8(14))                            // MajorLinkerVersion
	w(uint8(0))                             // MinorLinkerVersion
	w(uint32(0))                            // SizeOfCode
	w(raw)                                  // SizeOfInitializedData
	w(uint32(0))                            // SizeOfUninitializedData
	w(uint32(0))                            // AddressOfEntryPoint: none
	w(uint32(exportRVA))                    // BaseOfCode
	w(uint64(0x180000000))                  // ImageBase
	w(uint32(sectionAlign))                 // SectionAlignment
	w(uint32(fileAlign))                    // FileAlignment
	w(uint16(6))                            // MajorOperatingSystemVersion
	w(uint16(0))                            // MinorOperatingSystemVersion
	w(uint16(0))                            // MajorImageVersion
	w(uint16(0))                            // MinorImageVersion
	w(uint16(6))                            // MajorSubsystemVersion
	w(uint16(0))                            // MinorSubsystemVersion
	w(uint32(0))                            // Win32VersionValue
	w(exportRVA + align(raw, sectionAlign)) // SizeOfImage
	w(uint32(fileAlign))                    // SizeOfHeaders
	w(uint32(0))                            // CheckSum
	w(uint16(3))                            // Subsystem: console
	w(uint16(0x0100))                       // DllCharacteristics: NX compatible
	w(uint64(0x100000))                     // SizeOfStackReserve
	w(uint64(0x1000))                       // SizeOfStackCommit
	w(uint64(0x100000))                     // SizeOfHeapReserve
	w(uint64(0x1000))                       // SizeOfHeapCommit
	w(uint32(0))                            // LoaderFlags
	w(uint32(16))                           // NumberOfRvaAndSizes
	w(uint32(exportRVA))                    // export table
	w(exportSize)
	for i := 1; i < 16; i++ {
		w(uint64(0))
	}
	// The section header.
	img.WriteString(".edata\x00\x00")
	w(uint32(sec.Len()))  // VirtualSize
	w(uint32(exportRVA))  // VirtualAddress
	w(raw)                // SizeOfRawData
	w(uint32(fileAlign))  // PointerToRawData
	w(uint32(0))          // PointerToRelocations
	w(uint32(0))          // PointerToLinenumbers
	w(uint16(0))          // NumberOfRelocations
	w(uint16(0))          // NumberOfLinenumbers
	w(uint32(0x40000040)) // initialized data, readable
	img.Write(make([]byte, fileAlign-img.Len()))
	img.Write(sec.Bytes())
	return img.Bytes()
}

func align(n, a uint32) uint32 { return (n + a - 1) &^ (a - 1) }

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: prngdll OUT.dll")
		os.Exit(2)
	}
	b := image("bcryptprimitives.dll", "ProcessPrng", "advapi32.SystemFunction036")
	if err := os.WriteFile(os.Args[1], b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "prngdll:", err)
		os.Exit(1)
	}
}
