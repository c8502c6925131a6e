-- insert.lua - sysbench script for lab/dbtrace's insert workload (MariaDB):
-- each event is one autocommit one-row INSERT into dbtrace_ins, which dbtrace
-- created (id BIGINT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(100)).
--   sysbench lab/dbtrace.d/insert.lua --db-driver=mysql ... --events=N --time=0 run

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
end

function event()
   con:query("INSERT INTO dbtrace_ins (v) VALUES ('dbtrace row')")
end

function thread_done()
   con:disconnect()
end
