// The program the two others are, without a Tabula library: it reads the same two lines
// and prints their sizes. What the others add to its size is what linking the library costs.
let screen = readLine() ?? ""
let changes = readLine() ?? ""
print("read \(screen.utf8.count) + \(changes.utf8.count) bytes")
