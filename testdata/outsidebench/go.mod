module example.com/outsidebench

go 1.26
