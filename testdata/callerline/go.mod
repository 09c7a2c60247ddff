module example.com/callerline

go 1.21
