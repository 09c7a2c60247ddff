module example.com/blocking

go 1.22
