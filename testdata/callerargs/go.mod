module example.com/callerargs

go 1.21
