module example.com/ifacecalls

go 1.22
