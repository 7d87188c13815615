// A titled panel on the window's background, as plasma-systemmonitor's
// faces sit on a page: the content goes below the title.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Rectangle {
    id: card
    property string title
    property string subtitle
    default property alias content: body.data
    property alias headerExtras: extras.data
    SystemPalette { id: pal; colorGroup: SystemPalette.Active }
    color: pal.base
    border.color: Qt.rgba(pal.windowText.r, pal.windowText.g, pal.windowText.b, 0.15)
    radius: Theme.radius
    implicitHeight: header.implicitHeight + body.implicitHeight + 32  // 12 above, 8 between, 12 below
    implicitWidth: 300

    RowLayout {
        id: header
        anchors { left: parent.left; right: parent.right; top: parent.top; margins: 12 }
        visible: card.title.length > 0
        Label {
            text: card.title
            font.bold: true
            elide: Text.ElideRight
            Layout.fillWidth: !card.subtitle
        }
        Label {
            text: card.subtitle
            visible: text.length > 0
            opacity: 0.7
            elide: Text.ElideRight
            Layout.fillWidth: true
        }
        Row { id: extras; spacing: 6 }
    }
    Item {
        id: body
        anchors { left: parent.left; right: parent.right; top: header.visible ? header.bottom : parent.top
                  bottom: parent.bottom; margins: 12; topMargin: header.visible ? 8 : 12 }
        implicitHeight: childrenRect.height
    }
}
