package mcphost

import "os/exec"

// ownGroup leaves cmd as it is on Windows: the SDK ends the server itself.
func ownGroup(*exec.Cmd) {}

// killGroup has no process group to kill on Windows.
func killGroup(int) {}
