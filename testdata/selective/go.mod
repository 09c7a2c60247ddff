module example.com/selective

go 1.16
