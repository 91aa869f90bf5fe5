-- Orders joined with their shipments within an hour; unmatched orders are padded
-- early (EARLY_FIRE) and corrected when the shipment arrives.
SET 'table.exec.sink.not-null-enforcer' = 'ERROR';

CREATE TABLE Orders (
    order_id   BIGINT NOT NULL,
    customer   STRING,
    amount     DECIMAL(10, 2),
    order_time TIMESTAMP(3),
    WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND
) WITH ('connector' = 'values', 'path' = 'orders.json');

CREATE TABLE Shipments (
    ship_id    BIGINT,
    order_id   BIGINT,
    ship_time  TIMESTAMP(3),
    WATERMARK FOR ship_time AS ship_time - INTERVAL '1' SECOND
) WITH ('connector' = 'values', 'path' = 'shipments.json');

CREATE TABLE OrderShipments (
    order_id   BIGINT NOT NULL,
    customer   STRING,
    amount     DECIMAL(10, 2),
    ship_id    BIGINT,
    ship_time  TIMESTAMP(3)
) WITH ('connector' = 'values', 'sink-insert-only' = 'false');

INSERT INTO OrderShipments
SELECT /*+ EARLY_FIRE('delay'='2s') */ o.order_id, UPPER(o.customer), o.amount, s.ship_id, s.ship_time
FROM Orders o
LEFT JOIN Shipments s
  ON o.order_id = s.order_id
 AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '5' SECOND;
