"""Four Card Poker's strategy table and the exact results of the strategies: GENERATED
by ``python -m game_server.games.fourcard.derive_strategy`` from the enumeration of
:mod:`game_server.games.fourcard.rules.analysis`; do not edit.

- :data:`TABLE`: the decision (fold, play 1x, play 3x) of every cell of a pair or high-card
  hand: the player's five ranks, how many of his cards share the up card's suit, the up
  card's rank (:func:`~game_server.games.fourcard.rules.analysis.encode_table`). Every hand
  above a pair plays 3x.
- The mean result of the Ante and the Play per Ante (negative: the player's loss), without
  the Ante Bonus (every hand that earns it plays 3x under each strategy, so that it adds
  the same to each), exactly, over every deal: :data:`STRATEGY_RESULT` for this table,
  :data:`OPTIMAL_RESULT` for the strategy that also reads the exact suits of the player's
  cards, :data:`SIMPLE_RESULT` for the published simple strategy (3x on a pair of 10s or
  better, 1x on a pair of 3s to 9s).

``tests/games/fourcard/test_fourcard_strategy.py`` derives cells of the table again by
enumeration and fails on any difference.
"""

from fractions import Fraction
from typing import Final

#: The table, zlib-compressed in base 85.
TABLE: Final = (
    "c-rk<(X#9)2&BvZ|L3jRduD=)ikgtjO!KgNyXIgF5>!AGnWsb|kw_#Gi9{liNF)-8L?V$$Boc{4B9TZW5{X12kw_#Gi9"
    "{lievTxFC}|RjL?V$$Bof!xTq{!#NWVmHg#Z!`pjD*;FJ1_M*S~#0^S}rGwSm7M)GuwId7vNK2AT)Dqis<1?f3-;fCd8"
    "11F3)c$CCm59EkBt4gMd@|A!R7F}__O`h|}FV+=IU|1W|e&^-U-g%K$FmJb$8(ByfyUIHy_Yp_rQTM<N$Vg>%hkH1lP{"
    "pT3DH+T<E_CA^TZ~#~!mo-WN1LV(94g84<HLzqYFY!VP-sGtT4=s2|PuAK79Dnu#eM<WOFHjjtEmsRzJh|LZfdS89Mii"
    ")cD!HKo<qO#sG6z_r`bE_LwC%`2M+Rtso(y1umJAGm96V>p!1_4;*-sh0kJ6mK_kqm6kK$Q*pU#7z1rM3;8;rS4lq6?_"
    "-7-Vv9NPS$4U%(RMDT$iU-x!-Or7q|N{|r`DuD5~qrWzp=7CJ}K&E+6TLyvtThwbA!_wu=L-Q8^vbpYU*=&1N*k#f^cJ"
    "gF`ndXs;c#Oe9HVPeG&~xek|JYpjj$TIK6o4!UtvyAbM(r<37C?W=>s$9amNE|@xQ1q1Zfk44AhCUr3_kvSPX12IPRd;"
    "0T#I09+gG`=Dv<O{*#h}eD&5VK9?WyT49;Kg6y|E-yMEHtaH0`f__nWD?*yzvK2p{fuXjFNppTyG?-$6!WPk_1&;ECsM"
    "Y?v^JASXOl%b&-{F&&aP4swjou7jjdD1*jTIw4%d0Y=I=f-sM-1u|Ex$)cQg<AyjkurGlm=5Pg%=B_|0jM(*`T%<SQUc"
    "p}XCe0XpJg__;(_^RImlR3dtyoDb6PxbJjb`WbEX{psO=Tn-tU&dli$a%y^wQkugut948a7Y1sSKuJR<Er=iBUoe6vk_"
    "wmkr5zrS<r0mgttz250t*-JUUZ~a_d*nm2^ZmS9zN`S3`2ZW1T!^`y=F3`y{EqY!5Fp;S0%6)7TdB{T^@{or-<RQ;@@L"
    "-qc$sj$L=LV3aOZIt~FYs)-Jhzp!H$L9n*2Mgs>->qSnao3}{cH@GF{Ar@>qRH!lD^rehtUDPvpgvW={lYi#Pj67l{{S"
    "UaJ@rvtaq3*$Mp`^I}cj#T-`Twy@MX8&+=S&E{A7%c$SBABj*LmfbUbzjkq9xbT~Jn3!=~RVDl``c%PMSJIh1cOWRA^`"
    "#jtGvW(%j7kzO3L7RX_@GKAQ!KbaoT>0SV+XD;$iF&=+H@QKtF#^=loiUXg#uP(vhrACIAOnnneo|g8vvrmS9iAS@g2>"
    "5LH!_ijJZJDE%7Ahs4|%@vTW}`B{Vq=m=XpgFnE&=%V*cA>V*JeaXPk+C<wxefU7hdWyF)O)aQE5yZ%g3w^WQi(a&Dv@"
    "r3`*&ZoIs2_HC8u0Or31<i91_UfN#T-aBotXE$=X?S&|FTZ6}i^_l<1@8=in!OJ8B+k@(QZ{&cvZ`A9}zR3-GeH`s+0P"
    "5(@n92=fs;*vYfE(l;>sN*WkOQ6MmS3M}ChbYxy9TIQn~iT15D*X$oC7e;1Kyo`SG*Cdx50QL_l=YR<BgDDU%=ZZ&;g7"
    "$vfc*2Q_A3LZSTth-w<!a05IOjcq8pWybm9D*aL_%0X85}uQ%h3ckD3^RfY|yqg(OD=rM&J(-sJpcd!g}U9>iUm_P+dk"
    "9r&LDQ6UKtebv$v@ItyI)2z`$8_<W%Y4Lo|3A|=Og<DoQFVBp=UbnTV}!*Q5*B2D`G+pa8o9UV8lI$mPZQsQ;=u~fSn%"
    "KG=Y!kNhl~7tpr4O^KJM!u=I5K~=2?C|i~#+7^z+dk+;FY{fp;7n-aL!|iF&=~=Zn|txA&(5sG}b>rpKX>4v2R1-QefL"
    "2pm4Y3|PJH`S~yez3pW(H|(P=>A}<8qc=9}u6!5Y-Z}Xm+Fx6~|EleC=<;~qCjs;CGt2Y;-MSe1Hfl!)d^t?b22yhv+a"
    "URx-sTC~&v4JgJrm!@?px7KiP$rZJt-vW_160O2EBeqi#vci`cY$g9J=m+P<e;TK;Na)2CBve%4?<S9gj5jOc(>w7f=e"
    "~;rf8<gGS%Pv`E*k4;+WIsH5kNX~_BjV-PR#i}kuJ&w?>H)(RPbTG)y1Rl}#+Z;k5%(k-zZQ+rRgJIL&gr}lolz+>$W9"
    "6$*U^%ase7}}jy(<CK1*uKSU^Z*Tj42TJ=UbplB4)AUM_@uAXYJxVAhdksV4|&K#9`cZfJmet{dB{Vai+K`dKpygthdk"
    "sV4|&K#9`cZfJmet{dB_vZb6pMw7W(!vJmC9$9Z2Niw?Mg327Dj#+^|L>2n0fs@5>FJubob*1&&W$f{S;v-h19TeRJ(5"
    ")_bB1o`3dVs?(ZR^sPK0?Kwr3^i0_RdR>(R@|?|siihhRu6IaW?{KcC3_feU<E@Ev>Usx#uynr}7VdaUOLx4bd7ia<)D"
    "Urxnl{Ir8#y=9j#37k8~>)RYx`!+jTixKA*$;WlJEY7)Z$6WaW_Qs{>HWy`_~-|dD>S8IPW+pc-;3l()QB!()K>a_Rd`"
    "`ex4t8aOF2^GK2Pj_8{0EOkbCHjy=E_kf_%?eG|EPo@-p+KpkBk(?aux!+XY<!UOIs^?JPw-~zsau*H`tjs|j|a~(lIK"
    "tMo1K(Gg#Ia%b1<M{`e|Mp~J{u^Wb^r=z?e4i@DADI8<_EIqaEj<5?b0g<Q+EL1Y@1y3%%ll@{jS%#~H{`!1=D*SIPzH"
    "RTmhGL3*Pdj1A<EpEfcbCCf1^E!&ncNphds$2K$Hov0f~CO(>J+8uSKacY(O1dw^cWcDfF1OK(xI5DS&6lz_)vb*q}~a"
    "RR7k`F+tVzyNpUNhFpOap6>&o+z1E=B5lYQ#v8E`Z`|Zzypi!n`gbS;zRzO3QR008zyN$hyfLoc1{iOo-JuLVF5Y;D?S"
    ")_f7;j{}k@n!0cw@XhfG87S0}}OmGv0W|9^+7D*nm2^6>p3lQ|K{mfna$bPYgN7;>#F=*x(3~svsjEt$1U<wc@;t(=l!"
    "A-aR}hcH(pOmAww|f(HxF@i_DiZ-nbPdpt9~^*Onf?sT8r8s3#*9K*=w9`In2$Iu;*5P|u=ZSug+b7a9|g$L6-^~)JNp"
    "XKLEC;Iuoa|K*0QwBfc=aU=!d>8@x`RM1PJ&4{ri!VF%d_NyXfJD9C^Yg{)HAJa$15ihI{CweKiW0y8(Qdw28B`}`%#&"
    "d1mV^w{y;h-S!_U`mP5MiyV)H#*c9om_w7}y@cd0h)_QEf<d3=k-(gBguEKl;iPg1>U^Q12D^)2a#CTHIqJWfZ)z=vWx"
    "N4B5idnorz+%s{{6z)TL&uHrD5ql;K0f~COwP%_;jeXLdY3vc8j-EKC*V`(nbM#FRD(`R^_^J%3o1`*;0zlXQ=<k{Arb"
    "#3c*9W_OD|;ER?ghqxI{Hy#>N@-pF7Z$q_$t<@8~HL|F6><EgGSRN(jE6+N~OIge{*^G1`ZG}@QY<oY(+d(qSURC8BpC"
    "o1$uU;)ig;-t~D85q6hE*eR@R$qt`7xfD2f6rn*a}{r{JSZOJ=Y_YEGfLMiF1u?PqV2nYxW2nYxW2nYxW2nYxW2nYxWe"
    "huu!7eFB{$$&iMArE=T^KCp^^C{50BB%LK^0;}BSoiDcl)A^(6YnO9&-Z8Dye~iROc{K{-9+L&AFz8yATK<FF5ta=@A9"
    "r&Jd5}Cac<<?NIOay{QBI8sJT&}>gk^?k>S04mhrBvOKS0?<hp||6+Ce8z{4}Rx6f=E9iHjhQnbCay|lfz+urN@X4qbc"
    "GPfr9O=4|2+JjrqRm<eJch*`=nE;r8M7`eW+hixt*K62-I=XJFvN4U>H$snT3q;FXAA7%E2A*5*_4$4g^iKX~RqE7p8V"
    "wZS<s<IJkZZ8Q^L+r68vy}9qzz%b(S5CGkB9L_#vAG1p$zywi}A*wJCJlP4o2YWcw^HdrJLi8Scx}+@kZJm%HRXzjbZo"
    "C`N|{<<Bg0r(jMFuZ@j@CKrhT}K%!o6#v5;#=LQ$eGTyiwZ;T$(@kLni@y0_2Au(6SWgq=={29o~<QwtEL8X6v?8EJtM"
    "(%C(@}Th0`ux52a|Y*FFy)v=%`<$cAp>}xV|uCGJjumlyuxhXs)yP<Db2o*(H$2L7UYIW86<VVveh>X_07jqr^Gv-^X5"
    "rd;lVV|;N?=i^IGxq0gLAfR{VVFZa*K-6>v{W8PLzyStp7!F^_&e`uS)NZm|cGJJoaSf#W)967_n|&v%1fYwr+jKpoxj"
    "^M#LTXC&o@F_jx+0Ik<e05QS450K2yCuQ$i4OF1Fgt9l^ZJu(IpB8vL``~KB4oCh@^P&CcB<K5}?b{ghB-NWXPwE0+-%"
    "{aWa`nx@<8*Wkd?>baWcxY3hjP!vJrnm#;d`bcRu#5qf=-k$0f~COwP(6Pub~#wEkGUps4;bIn?mIsE(4T_60pEgNh1S"
    "lqnBlLwDwH>);KSaNL(MB(YLaf60kmi_QctMI{Hy#>T)TDOFUEtzJ&LqB2fm^qDJah=&lbMO_NAB)cwjT?_cuG<tfXa5"
    "JR}Ywb8jk2FL-l6>fk=1yHNk;<7ufrb&n7vhC{SdZ5GAO#m^0)$5iXj9XJR<7SG+L2t1Y(7#k2&5e-VKn_-@alaV>0Ra"
    "I40RaI40RaI40Rh2BfHi*z>yxvtI{^Vfv<+FZ*MF@*8zJbXEwEhI9dkU(_ef)h$MbSRdRnd&YmR*RSrN+M)9#VJH2?a@"
    "dwz#_J3w2AQN5?8h56dL?nOsg*PV8UGWa~(izwSG%JxEKnA+esiD#E-4{pu76~x(t%qaBI&xN_5)a(6x@_4-#rOL1Yb#"
    "&cU-7u!EQVX}8Op*v0K<jlA=nXfr3#RLQb}@R_YM=mT)pdu1XQ`(7d~I&DYP7SidvINMG~yTwwbQ$G-LarM_HzR3y3fl"
    "^xtktR*WK88b^LsIgr6_Gu6y&L^z(5~OBvA5SH@WMe+z&L(9cIdAMHW(-dXPQ^C1VQ0Ev3N=jWU9VV~vaJM_9y(v3R0<"
    "L3(>Qyq|OmYxiD^99Qw57&y4fd={y6nOVRT{<af`}vCHqS1733B|hZL3Q2nL3Q16UR`&mL*?S<{5WyX#68oUJ``t!?es"
    "kp3V;fbsMlM2ra6DWDSE97d|CJ1bI<f~V~YBgv%0i<sJz2vpwAGrFD_`5EIu}R>eBo6o~b<2U^Go4k+?qC?VH@NK0pcT"
    "BueV&M~$g*?TJ(l^Js~OuMf}#9c_P&Tcg)T?qr^TY-A&oNH^4Vzy6!E>blGDQl-#n&ebw7>$+=z3aGm!G_ZP|%_B{_g9"
    "^~@6yrKE7oDL87yyVWzFq*`YZ>SP1^}Y!x~o@oe-02;i9NgeEbnODH;lllK{T`Noi)7Xc+vt7>bf}B@T4cpAVzK}=zXG"
    "O5cfWa;aU3@@KxVJlnoh_({jGgB|Pk#`TbzwTX>AzzD*CF&4Wku4dhuGAG?A6x835w6wlK78a%g~%K+EP;O29?=$t=YI"
    "=7p)&c^!A;9`Mi<qYl=56r$Lcm$$$-fL%Y2R!C;@|SBga7wIg@7yk~JGWbP^0fMVLSnupW$+0(r_-nPHe!_dK@1GQZxV"
    "CRX%FtT2MDtVI_+Gi9NK_Hy<YFzzo1>XUboW$<V*EBQr}*2|JWR}enxcgn92<@fY$3KfY<;Eyt?!b%-6XdgVs(yw~J!)"
    "jSoM!Tgu?dbGz9CuRFJ!JtyYeF0glQ*ZUlv+vT2#d!~=uGojuyNyMH>SJ1EliF&=E*Y%z$K(9OL!}6ti9lK{LPwrknrq"
    "I=XS|C*3;WDV}8d;#Vr-B0GJ(FXHMk0~8KG^P?#IFy^bGycgBI@YIn92?7gYu{@Y7i;!co`T+by0)XwJ^u98NKeEpKCQ"
    "uBHeI*R<zxz&g~la!vzccdKsVt>T=m4t)g(E3q6RgCp5M@t)@xupkA;Z)JJuVT#S~-vF`PY7vpogR@0RX#Bp?2yGE@;z"
    "@xqyM|G>#*6mxCB;80ZM|o#Zg9n{^hI;w_)<ZKM-$POIIFjXiJSjQfCpi+|tM|cB2IX@+dF!>T9T!&h`qs@`w?XR40Id"
    "f0cnUozqRT!#$fM<x_h%*F;f&66y5CQpIq%d1OzDmhU3TgLhQrt&)3l&FX{b9HpYyCpCAYNjK51HR$#uCN3>&<`(^m4L"
    ">G|g*SKm_aec(KolY`67%P<$Gc+R79amMG2(ETvZ%f&hQIlH+yQU2bC5$|GTF3yd9B$XF@xgRMnn~xD7QLi_1apZ<v9E"
    "<>U^rOZU`bMl4i1m0!%b<6y*!bK56nF<r+qpR7Qw$^$iR**?zR3-_IK!&0)X|+>oEz2$(D#zsAXefxtPh~?CAERRV+vU"
    "kuXTZ|*z1E~Yg`|Y;_Z&yV0X$~92g*0;PG~+tf3DB=zGwBJZZ1Em`j>=r^v-In<l;1RC0GN4h*30f&+>qs=U`n?#mz-$"
    "836D251#`(!Xf&)_tpUag0(?7p&vA&sL{}KTmT_r-kP@`<7PwHXENig=gXQFB;PQzNPuDBwWUGPv6pf(~P;2&Y6R`_NO"
    "mR-uJLeXT2k*t^M<(Y#0K5r(0(gL&h}srC|u-MII>wwX^R4eXbK(5Y8&9rjz;y4U~XHiuR>d+8g0Z!w`hK@Iz&wylEYv"
    "&mJRl?xQZEB(~idw?@0;(}PRqpVF5G3+VILK;Z<<4<|}P4@zH}-LzGrz~f7Uc7;`rxk2A5Uz*Wc*gBrXy))$&E4SzS0;"
    "HU2ub3B#JG(IkZWC?Jbt|J3IydTCI!&Nsvp}_(64x3D4)77{mvB9}=36M2MHmAep9YG>Z4opU*BYtO^zd7-g$BLEneJP"
    ";MzUJ_x;4_b%~>noT-ZEUesgdD%><OjvbMw4HwO=>T+E)K7Ttij`i9OoXSVir^dGq5(nA"
)
#: Cells derived, by decision (0 fold, 1 play 1x, 3 play 3x).
CELLS: Final = {0: 72347, 1: 79377, 3: 57004}
#: Deals (player hand and up card) whose own optimal decision is not their cell's.
DEPARTURES: Final = 140532
#: Deals in all: C(52, 5) x 47.
DEALS: Final = 122151120
#: The table for people, by pair or top two cards of high cards and up card rank
#: ("3" play 3x, "1" play 1x, "F" fold; "3/1": some cells one, some the other).
GRID: Final = (
    "hand    | up: 2     3     4     5     6     7     8     9     T     J     Q     K     A",
    "AA      |     3     3     3     3     3     3     3     3     3     3     3     3     3",
    "KK      |     3     3     3     3     3     3     3     3     3     3     3     3     3/1",
    "QQ      |     3     3     3     3     3     3     3     3     3     3     3     3/1   3/1",
    "JJ      |     3     3     3     3     3     3     3     3     3     3     3/1   3/1   3/1",
    "TT      |     3     3     3/1   3/1   3/1   3/1   3/1   3     3/1   3/1   3/1   3/1   3/1",
    "99      |     3/1   3/1   3/1   3/1   3/1   3/1   3/1   3/1   1     1     1     1     1",
    "88      |     3/1   3/1   3/1   3/1   3/1   3/1   3/1   1     1     1     1     1     1",
    "77      |     3/1   1     1     1     3/1   3/1   1     1     1     1     1     1     1",
    "66      |     1     1     1     1     1     1     1     1     1     1     1     1     1",
    "55      |     1     1     1     1     1     1     1     1     1     1     1     1     1",
    "44      |     1     1     1     1     1/F   1/F   1/F   1/F   1/F   1/F   1/F   1     1",
    "33      |     1     1     1/F   1/F   1/F   1/F   1/F   1/F   1/F   1/F   1/F   1/F   1/F",
    "22      |     1     1/F   1/F   1/F   1/F   1/F   1/F   1/F   1/F   1/F   1/F   1/F   1/F",
    "AK-high |     1/F   1/F   1/F   1/F   1/F   1/F   1/F   1/F   1/F   1/F   1/F   1/F   1/F",
)
#: The table's strategy.
STRATEGY_RESULT: Final = Fraction(
    -94648744963,
    996661525860,
)
#: The fully optimal one.
OPTIMAL_RESULT: Final = Fraction(
    -6022977559,
    63423915282,
)
#: The simple strategy.
SIMPLE_RESULT: Final = Fraction(
    -11750557636,
    116277178017,
)
