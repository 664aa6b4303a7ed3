// SPDX-FileCopyrightText: 2026 pqsoc contributors
// SPDX-License-Identifier: Apache-2.0
// A stand-in for our Amaranth Wishbone blocks (KMAC, coprocessor), to test the SoC's hook:
// Wishbone classic slave with Amaranth's port names (bus__*), word addresses, one irq.
//   word 0: scratch register, byte selects honoured
//   word 1: read-only ID 0x5C7A7C11
//   word 2: irq: writing bit 0 sets/clears the interrupt line; reads back its state
//   any other word: answered with err
module wb_scratch (
    input  wire        clk,
    input  wire        rst,
    input  wire [9:0]  bus__adr,
    input  wire [31:0] bus__dat_w,
    output reg  [31:0] bus__dat_r,
    input  wire [3:0]  bus__sel,
    input  wire        bus__cyc,
    input  wire        bus__stb,
    input  wire        bus__we,
    output reg         bus__ack,
    output reg         bus__err,
    output reg         irq
);
    reg [31:0] scratch;
    wire start = bus__cyc & bus__stb & ~bus__ack & ~bus__err;
    integer i;
    always @(posedge clk) begin
        bus__ack <= 1'b0;
        bus__err <= 1'b0;
        if (rst) begin
            scratch <= 32'd0;
            irq <= 1'b0;
        end else if (start) begin
            case (bus__adr)
                10'd0: begin
                    bus__ack <= 1'b1;
                    bus__dat_r <= scratch;
                    if (bus__we)
                        for (i = 0; i < 4; i = i + 1)
                            if (bus__sel[i]) scratch[8*i +: 8] <= bus__dat_w[8*i +: 8];
                end
                10'd1: begin
                    bus__ack <= 1'b1;
                    bus__dat_r <= 32'h5C7A7C11;
                end
                10'd2: begin
                    bus__ack <= 1'b1;
                    bus__dat_r <= {31'd0, irq};
                    if (bus__we) irq <= bus__dat_w[0];
                end
                default: bus__err <= 1'b1;
            endcase
        end
    end
endmodule
